/** The SDK's version, sent in `x-stack-client-version` as `js @gatehouse/js@<version>` (PROTOCOL.md §1.3). */
export const SDK_VERSION = "0.1.0";
export const CLIENT_VERSION_HEADER = `js @gatehouse/js@${SDK_VERSION}`;
