"""Remove stale pre-releases (fixture for the guard-one-way-doors tests)."""

from github import Github


def stale(release):
    return release.prerelease and release.title.startswith("nightly-")


repo = Github().get_repo("acme/api")
for release in repo.get_releases():
    if stale(release):
        release.delete_release()
