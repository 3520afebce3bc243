"""Persistence: SQLAlchemy models, the engine factory and queries (the only SQLAlchemy user)."""
