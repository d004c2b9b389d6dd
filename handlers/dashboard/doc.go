// Package dashboard serves the browser pages project admins use (CONTRACT
// §6): sign-up and sign-in with a session cookie, projects and their
// members, invitations and API keys, the job pages and the analytics page.
// A handler reads the form, calls the service the API calls too, and
// renders a component, or the page again with why the service refused.
package dashboard
