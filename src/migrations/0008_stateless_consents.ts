import type { Kysely } from 'kysely'

// A consent row is written only after a successful sign-in (the pending request before it lives in the signed
// form field). `request_hash` (SHA-256 of that signed value, unique) spends it, so the sign-in page cannot open a
// second consent; `answered_at` marks the Allow or Deny, keeping the row (and so the spent value) until it expires.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_consents').addColumn('request_hash', 'text').execute()
  await db.schema.alterTable('oauth_consents').addColumn('answered_at', 'text').execute()
  await db.schema.createIndex('oauth_consents_request').on('oauth_consents').column('request_hash').unique().execute()
  // Pending requests from before: nobody had signed in, and the new page reads its requests from the form.
  await db.deleteFrom('oauth_consents' as never).where('customer_id' as never, 'is', null).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_consents_request').execute()
  await db.schema.alterTable('oauth_consents').dropColumn('answered_at').execute()
  await db.schema.alterTable('oauth_consents').dropColumn('request_hash').execute()
}
