"""Policy rules of volume attachments (filled in by the attachments API)."""

rules = []


def list_rules():
    return rules
