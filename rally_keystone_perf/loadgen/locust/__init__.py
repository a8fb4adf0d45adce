"""The Locust engine: the suite's scenarios on Locust's master and workers."""
