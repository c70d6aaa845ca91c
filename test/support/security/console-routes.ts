// The merchant console's routes for its security suite (test/console/security.test.ts runs them): each page and
// form as a signed-in merchant user of testrest may send it. Sign-in and the stylesheet are public
// (test/support/security/coverage.ts). A route naming a report, subscription, key, call (its correlation id),
// webhook subscription, notification or webhook signing key names testrest's own when allowed, and another
// merchant's or one nobody has in the tenancy check, which must answer alike (404). The operators' routes are sent
// as a merchant user with the operator role; to anyone else they answer 404, as an unknown id does.
import { makeCertificate } from '../reporting-jwt.js'
import type { SecuredRoute } from './suite.js'

export interface ConsoleRoute extends SecuredRoute {
  method: 'GET' | 'POST'
  /** The path, with `{id}` for the report or subscription it names, if any. */
  path: string
  /** What the identifier names, for the tenancy check. */
  names?: 'report' | 'subscription' | 'key' | 'request' | 'webhook' | 'notification' | 'signingKey' | 'merchant user' | 'OAuth client'
  /** Only for operators: anyone else gets the 404 of a page that does not exist. */
  operator?: true
  /** The form a POST sends (beside its CSRF token). */
  form?: () => Record<string, string | string[]>
  /** The status an allowed call answers with. */
  allowed: number
}

let created = 0
/** A day of the sandbox's generated transactions (the test app's clock is 2026-02-01). */
const WINDOW = 'startTime=2026-01-30T00:00:00Z&endTime=2026-01-31T00:00:00Z'
/** The sandbox's generated conversions (about one a day): the 30 days before the test app's clock. */
const SANDBOX_WINDOW = 'startTime=2026-01-02T00:00:00Z&endTime=2026-02-01T00:00:00Z'
/** A certificate nobody registered yet (each registration must be new); its .p12 is not needed. */
const certificateForm = () => {
  const made = makeCertificate({ organization: 'testrest' })
  made.remove()
  return { certificate: made.pem }
}
const subscriptionForm = (name: string) => ({
  reportDefinitionName: 'TransactionRequestClass',
  reportName: name,
  reportFields: ['Request.RequestID', 'Request.TransactionDate'],
  reportMimeType: 'text/csv',
  reportFrequency: 'DAILY',
  timezone: 'GMT',
  startTime: '0300',
})

const webhookForm = () => ({
  name: 'security receiver',
  webhookUrl: 'http://127.0.0.1:9/hook',
  events: ['customerInvoicing|invoicing.customer.invoice.send'],
  notificationScope: 'DESCENDANTS',
  algorithm: 'ARITHMETIC',
})

export const CONSOLE_ROUTES: readonly ConsoleRoute[] = [
  { route: 'GET /console', method: 'GET', path: '/console', allowed: 200 },
  { route: 'POST /console/sign-out', method: 'POST', path: '/console/sign-out', form: () => ({}), allowed: 303 },
  { route: 'GET /console/organization', method: 'GET', path: '/console/organization', allowed: 200 },
  { route: 'POST /console/organization', method: 'POST', path: '/console/organization', form: () => ({ organizationId: 'testrest' }), allowed: 303 },
  { route: 'GET /console/overview', method: 'GET', path: '/console/overview', allowed: 200 },
  { route: 'GET /console/reports', method: 'GET', path: '/console/reports', allowed: 200 },
  { route: 'GET /console/reports/new', method: 'GET', path: '/console/reports/new?definition=TransactionRequestClass', allowed: 200 },
  {
    route: 'POST /console/reports',
    method: 'POST',
    path: '/console/reports',
    form: () => ({
      reportDefinitionName: 'TransactionRequestClass',
      reportName: `security_${++created}`,
      reportMimeType: 'text/csv',
      timezone: 'GMT',
      reportStartTime: '2026-01-01T00:00:00Z',
      reportEndTime: '2026-01-02T00:00:00Z',
      reportFields: ['Request.RequestID'],
    }),
    allowed: 303,
  },
  { route: 'GET /console/reports/:id', method: 'GET', path: '/console/reports/{id}', names: 'report', allowed: 200 },
  { route: 'GET /console/reports/:id/download', method: 'GET', path: '/console/reports/{id}/download', names: 'report', allowed: 200 },
  { route: 'GET /console/subscriptions', method: 'GET', path: '/console/subscriptions', allowed: 200 },
  { route: 'GET /console/subscriptions/new', method: 'GET', path: '/console/subscriptions/new?definition=TransactionRequestClass', allowed: 200 },
  { route: 'POST /console/subscriptions', method: 'POST', path: '/console/subscriptions', form: () => subscriptionForm(`security_${++created}`), allowed: 303 },
  { route: 'GET /console/subscriptions/:name', method: 'GET', path: '/console/subscriptions/{id}', names: 'subscription', allowed: 200 },
  { route: 'POST /console/subscriptions/:name', method: 'POST', path: '/console/subscriptions/{id}', names: 'subscription', form: () => subscriptionForm('{id}'), allowed: 303 },
  { route: 'POST /console/subscriptions/:name/delete', method: 'POST', path: '/console/subscriptions/{id}/delete', names: 'subscription', form: () => ({}), allowed: 303 },
  // The on-demand reports: always for the organization acted for, so no identifier to cross (test/console/on-demand.test.ts
  // shows another merchant's transactions never appear).
  { route: 'GET /console/on-demand', method: 'GET', path: `/console/on-demand?${WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/purchase-refund-details.csv', method: 'GET', path: `/console/on-demand/purchase-refund-details.csv?${WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/net-funding', method: 'GET', path: `/console/on-demand/net-funding?${WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/batch-summaries', method: 'GET', path: `/console/on-demand/batch-summaries?${WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/conversions', method: 'GET', path: `/console/on-demand/conversions?${WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/conversions.csv', method: 'GET', path: `/console/on-demand/conversions.csv?${SANDBOX_WINDOW}`, allowed: 200 },
  { route: 'GET /console/on-demand/notifications-of-change', method: 'GET', path: `/console/on-demand/notifications-of-change?${WINDOW}`, allowed: 200 },
  // The sandbox page (sandbox mode only, as the test app runs): the clock of the organization acted for, its events.
  { route: 'GET /console/sandbox', method: 'GET', path: '/console/sandbox', allowed: 200 },
  { route: 'POST /console/sandbox/clock', method: 'POST', path: '/console/sandbox/clock', form: () => ({ amount: '1', unit: 'minutes' }), allowed: 303 },
  { route: 'POST /console/sandbox/clock/real-time', method: 'POST', path: '/console/sandbox/clock/real-time', form: () => ({}), allowed: 303 },
  { route: 'GET /console/sandbox/reset', method: 'GET', path: '/console/sandbox/reset', allowed: 200 },
  // Confirmed with another id: past the session and CSRF checks, refused at the confirmation (400), so the suite never
  // resets the data the other rows stand on (test/console/sandbox.test.ts resets for real).
  { route: 'POST /console/sandbox/reset', method: 'POST', path: '/console/sandbox/reset', form: () => ({ confirm: 'not-testrest' }), allowed: 400 },
  { route: 'POST /console/sandbox/events', method: 'POST', path: '/console/sandbox/events', form: () => ({ eventType: 'reporting.report.no-data' }), allowed: 303 },
  { route: 'GET /console/keys', method: 'GET', path: '/console/keys', allowed: 200 },
  { route: 'POST /console/keys', method: 'POST', path: '/console/keys', form: () => ({}), allowed: 200 },
  { route: 'POST /console/keys/certificates', method: 'POST', path: '/console/keys/certificates', form: certificateForm, allowed: 200 },
  { route: 'POST /console/keys/:id/revoke', method: 'POST', path: '/console/keys/{id}/revoke', names: 'key', form: () => ({}), allowed: 303 },
  { route: 'GET /console/requests', method: 'GET', path: '/console/requests', allowed: 200 },
  { route: 'GET /console/requests/find', method: 'GET', path: '/console/requests/find?correlationId=sec-mine', allowed: 303 },
  { route: 'GET /console/requests/:correlationId', method: 'GET', path: '/console/requests/{id}', names: 'request', allowed: 200 },
  { route: 'GET /console/webhooks', method: 'GET', path: '/console/webhooks', allowed: 200 },
  { route: 'GET /console/webhooks/new', method: 'GET', path: '/console/webhooks/new', allowed: 200 },
  { route: 'POST /console/webhooks', method: 'POST', path: '/console/webhooks', form: webhookForm, allowed: 303 },
  { route: 'GET /console/webhooks/:id', method: 'GET', path: '/console/webhooks/{id}', names: 'webhook', allowed: 200 },
  { route: 'POST /console/webhooks/:id', method: 'POST', path: '/console/webhooks/{id}', names: 'webhook', form: webhookForm, allowed: 303 },
  { route: 'POST /console/webhooks/:id/status', method: 'POST', path: '/console/webhooks/{id}/status', names: 'webhook', form: () => ({ status: 'INACTIVE' }), allowed: 303 },
  { route: 'POST /console/webhooks/:id/test', method: 'POST', path: '/console/webhooks/{id}/test', names: 'webhook', form: () => ({}), allowed: 303 },
  { route: 'GET /console/webhooks/deliveries', method: 'GET', path: '/console/webhooks/deliveries?webhookId={id}', names: 'webhook', allowed: 200 },
  { route: 'GET /console/webhooks/deliveries/:id', method: 'GET', path: '/console/webhooks/deliveries/{id}', names: 'notification', allowed: 200 },
  { route: 'POST /console/webhooks/deliveries/:id/replay', method: 'POST', path: '/console/webhooks/deliveries/{id}/replay', names: 'notification', form: () => ({}), allowed: 303 },
  { route: 'GET /console/webhooks/replays', method: 'GET', path: '/console/webhooks/replays', allowed: 200 },
  // The subscription a set replay selects is named in the form, not the path.
  { route: 'POST /console/webhooks/replays', method: 'POST', path: '/console/webhooks/replays', names: 'webhook', form: () => ({ webhookId: '{id}', status: 'HELD', hoursBack: '1' }), allowed: 303 },
  { route: 'GET /console/webhooks/keys', method: 'GET', path: '/console/webhooks/keys', allowed: 200 },
  { route: 'POST /console/webhooks/keys', method: 'POST', path: '/console/webhooks/keys', form: () => ({ expiryDuration: '30' }), allowed: 200 },
  { route: 'POST /console/webhooks/keys/:id/revoke', method: 'POST', path: '/console/webhooks/keys/{id}/revoke', names: 'signingKey', form: () => ({}), allowed: 303 },
  ...operatorRoutes(),
]

function operatorRoutes(): ConsoleRoute[] {
  const operator = true as const
  return [
    { route: 'GET /console/operators', method: 'GET', path: '/console/operators', operator, allowed: 200 },
    {
      route: 'POST /console/operators/organizations',
      method: 'POST',
      path: '/console/operators/organizations',
      operator,
      form: () => ({ id: `sec_org_${++created}`, type: 'merchant', parentId: 'testrest_acct', name: 'Security' }),
      allowed: 303,
    },
    { route: 'GET /console/operators/users', method: 'GET', path: '/console/operators/users?org=testrest', operator, allowed: 200 },
    { route: 'POST /console/operators/users', method: 'POST', path: '/console/operators/users', operator, form: () => ({ organizationId: 'testrest', username: `sec-user-${++created}`, password: '' }), allowed: 200 },
    { route: 'POST /console/operators/users/:id/revoke', method: 'POST', path: '/console/operators/users/{id}/revoke', names: 'merchant user', operator, form: () => ({}), allowed: 303 },
    { route: 'GET /console/operators/keys', method: 'GET', path: '/console/operators/keys', operator, allowed: 200 },
    { route: 'POST /console/operators/keys', method: 'POST', path: '/console/operators/keys', operator, form: () => ({ organizationId: 'testrest' }), allowed: 200 },
    { route: 'POST /console/operators/keys/:id/revoke', method: 'POST', path: '/console/operators/keys/{id}/revoke', names: 'key', operator, form: () => ({}), allowed: 303 },
    { route: 'GET /console/operators/clients', method: 'GET', path: '/console/operators/clients', operator, allowed: 200 },
    {
      route: 'POST /console/operators/clients',
      method: 'POST',
      path: '/console/operators/clients',
      operator,
      form: () => ({ name: `Security ${++created}`, organizationId: 'testrest', scopes: 'reporting', redirectUris: '' }),
      allowed: 200,
    },
    { route: 'POST /console/operators/clients/:id/revoke', method: 'POST', path: '/console/operators/clients/{id}/revoke', names: 'OAuth client', operator, form: () => ({}), allowed: 303 },
  ]
}
