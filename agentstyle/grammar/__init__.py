"""The condition and template languages: Lark grammars, their parser and typed nodes."""
