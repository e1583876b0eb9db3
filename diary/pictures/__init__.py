"""Pictures attached to diary posts (maps, handouts, sketches) and the session's gallery."""
