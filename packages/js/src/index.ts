// @gatehouse/js: the SDK for browsers and Node. The class names mirror the reference SDK's, so an app written
// against @stackframe/js migrates by changing its import. This entry has everything (the admin entry, which
// includes the server entry, which includes the client entry); a browser app that only signs users in imports
// @gatehouse/js/client, which a bundler cannot fill with admin code by mistake.
export * from "./admin.ts";
