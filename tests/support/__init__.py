"""What every test module shares, in one package: no test module imports another.

- `environment`: the one clean environment (`clean_env`) every `style` and hook process runs in,
  and the deadlines and engine settings tests may add to it.
- `cli`: `style` in a test, two ways: `style_in_process` (the command's code in the test
  process, for what a command says and writes) and `style_process` (a process of its own, for
  exit codes, stdio, a terminal).
- `hooks`: the hook as a harness runs it, always a real process with the harness's JSON on
  stdin; its answer (`HookResult`); the sample payloads of tests/fixtures/.
- `project`: a scratch project (`Project`) and one installed once per module (`Saved`).
- `harness`: the same for every harness (`HarnessProject`, config paths, fixture folders).
- `layers`: a machine with managed, user and project policies (`Machine`).
- `packages`: the text of a STYLE package (`package_text`), for a test that writes its own.
- `waiting`: `poll`, waiting for what a background process does, up to a deadline.
- `cases`: long tables of cases kept as data (tests/data/cases/), a test run once for each row.

tests/conftest.py holds the fixtures built on these.
"""
