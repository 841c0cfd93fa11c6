// @gatehouse/cli: not built yet; see the open issues.
