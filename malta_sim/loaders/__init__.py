"""Loaders: parse and validate data files into typed tables and dense arrays."""
