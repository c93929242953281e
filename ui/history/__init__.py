"""The History page: saved versions of a project, their history, and review links."""
