"""Hypervisor side of the manager: attach volumes to this host's
instances through a hypervisor driver plugin."""
