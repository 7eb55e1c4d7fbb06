"""The History boundary: Pi-compatible session files, their tree, projection and compaction."""
