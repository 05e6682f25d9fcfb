"""What the fake moderator answers: one synthesis per shape of heading the tests rely on."""

SYNTHESIS = "## Consensus\nReplicas first.\n\n## Disagreements\nNone lasting.\n\n## Verdict\nUse read replicas."

# The adversarial protocol's own headings, its verdict under "Conclusion".
ADVERSARIAL_SYNTHESIS = (
    "## Agreement\nReplicas.\n\n## Conflicts\nPanelist B vs A on cost; decision: A (benchmarks).\n\n"
    "## Conclusion\nReplicas, confidence 70%; changes if writes triple."
)
