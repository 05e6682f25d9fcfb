"""Runs on the Django side: spec (the frozen input), lease (who runs it), execute (the engine with
its sinks), recorder (events into rows), tasks (enqueueing and resuming), taskbackend (local mode).

A question's walk: views/api/CLI/Telegram -> forms.AskForm -> tasks.submit -> tasks.run_question
-> execute.execute -> lease.claim -> spec.spec_for -> engine.run -> recorder + live.sink.
"""
