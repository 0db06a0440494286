"""Print the release checklist.

To undo a bad release, maintainers call delete_release() by hand; never from CI.
"""


def delete_release(tag):  # a definition, not a call
    raise NotImplementedError(tag)


print("1. bump version\n2. tag\n3. gh release create")
