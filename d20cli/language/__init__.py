"""The request language: text -> Request.

`vocabulary` holds every word (verbs, keywords, DC names, ranks) that the grammar,
completion, help, the shell and characters read; `grammar` and `dice_grammar` are the
pyparsing grammars (imported only when a request must be parsed); `requests` holds the
Request dataclasses they build; `parse_cache` encodes parsed requests for the cache on disk.
Knows words, not rules.
"""
