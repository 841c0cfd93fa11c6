// @gatehouse/js: not built yet; see the open issues.
