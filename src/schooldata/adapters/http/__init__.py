"""Driven adapters over HTTP: fetching the publishers' files."""
