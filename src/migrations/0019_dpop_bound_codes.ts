import type { Kysely } from 'kysely'

// RFC 9449 10: an authorization code bound to a DPoP key. The RFC 7638 thumbprint the client named (dpop_jkt, or
// the key of its pushed request's DPoP proof) travels from the signed-in consent to the code; a code with one is
// exchanged only with a proof by that key. Null: not bound, as every earlier row.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_consents').addColumn('dpop_jkt', 'text').execute()
  await db.schema.alterTable('oauth_codes').addColumn('dpop_jkt', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_codes').dropColumn('dpop_jkt').execute()
  await db.schema.alterTable('oauth_consents').dropColumn('dpop_jkt').execute()
}
