"""Rolling a request: the layer under the command line (d20cli.app) and the Python API
(d20cli.api), which both stand on it, above the rules, the odds and the presentation.

- `rolls`: a request's text checked, its rolls planned and each result resolved by the
  system with a roller (the path of every roll);
- `prepared`: a plain request made ready once, so a line a batch repeats goes straight to
  its dice (`PreparedLine`, `PreparedLines`);
- `dice_memo`: a prepared line's results remembered by the faces drawn;
- `limits`: the limits of a request and of a command, stated once.
"""
