"""Everything on disk: the state database (settings, fortune dice, last rolls), the roll
log, and the characters file. The only layer that reads or writes the user's files."""
