"""Storage drivers (entry point namespace cinder_ma.volume.drivers)."""
