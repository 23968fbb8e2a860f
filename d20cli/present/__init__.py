"""Results for people and programs: styled lines (plain text says everything; rich adds
colour on a terminal), JSON lines, the odds and systems views, and the output streams."""
