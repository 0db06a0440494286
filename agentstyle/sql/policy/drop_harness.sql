-- Forget one harness's plan entries (uninstall). Parameters: $harness.
DELETE FROM entries WHERE harness = $harness;
