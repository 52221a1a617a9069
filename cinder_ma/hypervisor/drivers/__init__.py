"""Hypervisor drivers (entry point namespace cinder_ma.hypervisor.drivers).
"""
