// @gatehouse/react: not built yet; see the open issues.
