"""`style import`: rules kept elsewhere brought into a package as rule files."""
