"""The condition and template languages: Lark grammars, their parser and typed nodes.

How a condition is parsed, checked and lowered into rows: docs/design/grammar.md.
"""
