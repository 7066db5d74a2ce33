"""The Python side of the shared SQL grammar (parser generated into `generated/` by the build)."""
