"""Silt's benchmarks: `python -m bench [name [flags...]]...` from the repository root (bench/README.md).

Kept free of imports: `python -m bench.runner` runs each benchmark's child process through it.
"""
