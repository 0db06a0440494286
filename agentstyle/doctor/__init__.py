"""`style doctor`: is what install wrote still there, and does it answer.

`checks` reads each installed harness's hook config, the lock and the database against what
install wrote (and the hook answering); `layers` the user's and the managed policy beside the
project's; `live` (`--live`) sends a canary call a rule refuses through each installed gate.
"""
