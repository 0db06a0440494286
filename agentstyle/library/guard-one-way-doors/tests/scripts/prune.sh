#!/bin/sh
# Prune old releases.
for tag in $(gh release list --limit 100 | awk '/nightly/ {print $1}'); do
  gh release delete "$tag" --yes
done
