"""Long-running simulations on a fake clock."""
