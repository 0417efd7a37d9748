/**
 * The short name of a session on our consent pages: the first 8 hex digits of its id (the pages
 * say "session 3f2a9c1e"). An app shows it to its user before they press Continue ("the page
 * should name session 3f2a9c1e"), and the success page says which session now holds the channel.
 * The session id is no credential (the token is), and 32 random bits cannot be picked by an
 * attacker who wants their session to read like someone else's.
 */
export function sessionLabel(sessionId: string): string {
  return sessionId.replace(/-/g, '').slice(0, 8);
}
