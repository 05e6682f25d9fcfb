"""One reader of model text: every role's output is read by the same rules.

- ``text``: think blocks, decorations around a value, our template's unfilled slots, comparison keys.
- ``jsonish``: the one lenient JSON extractor.
- ``confidence``: the one confidence rule.
- ``words``: the words of a short answer, as compared.
- ``ballot``: a voter's decision, confidence and reasons.
- ``closing``: a panelist's closing block (answer, claims, attacks, replies, verdicts, change).
- ``synthesis``: a moderator's sections, verdict and confidence.
- ``gates``: what is not an answer (the phantom panelist), and the anti-pattern flags.
- ``triage``: the facilitator's triage.

Lenient about form, strict about meaning: what cannot be read is said, never guessed.
"""
