"""Stores shared by the processes of one machine (no network service needed)."""
