"""JSON schemas of request bodies, one module per resource."""
