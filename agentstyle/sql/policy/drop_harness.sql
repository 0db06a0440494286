-- Forget one harness's plan entries (uninstall). Parameters: $1 harness.
DELETE FROM entries WHERE harness = $1;
