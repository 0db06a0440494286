"""The observer lane: slow read-only checks run beside the session, their results told later.

A check rule's event part holds at its point (the evaluator names it in `Decision.checks`);
the hook answers at once and leaves a ticket (`tickets.py`). The runner (`runner.py`) takes
the ticket, waits out the rule's cooldown (`slots.py`), runs the command bounded
(`execute.py`), and hands the result back to the hook pipeline as an event at `check.done`,
where the whole condition decides whether the rule speaks. What it says reaches the model by
the client's background hook (Claude Code's `asyncRewake`) or at the session's next event
(`deliveries.py`). A check runs only where the person allowed it (`accepted.py`). The hook's
part (start, give, stop) is runtime/observers.py.
docs/observers.md for users, docs/design/observers.md for why it is built this way."""
