// The official SDK (cybersource-rest-client; `npm install cybersource-rest-client`) pointed at this server, with
// each of its three authentication types and the sandbox's public identities of the merchant testrest. The SDK
// signs its configured environment's host name whatever intermediateHost says, and it needs logConfiguration:
// without it, it throws before sending anything.
//   BASE=http://127.0.0.1:3000 node examples/reporting/sdk.mjs
import { URLSearchParams } from 'node:url'
import cybersource from 'cybersource-rest-client'

const base = process.env.BASE ?? 'http://127.0.0.1:3000'
const server = { runEnvironment: 'apitest.cybersource.com', intermediateHost: base, logConfiguration: { enableLog: false } }
const sharedSecret = { merchantKeyId: '08c94330-f618-42a3-b09d-e1e43be5efda', merchantsecretKey: 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=' }

// An OAuth access token of testrest's own client (client_credentials).
const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'testrest-reporting', client_secret: '8Pp0fzAtKI3DkayhQHM+snVm7+GtqaLYZaB03ZH+HAk=', scope: 'reporting' })
const { access_token: accessToken, refresh_token: refreshToken } = await (await fetch(`${base}/oauth2/v3/token`, { method: 'POST', body: form })).json()

const configurations = {
  http_signature: { ...server, authenticationType: 'http_signature', merchantID: 'testrest', ...sharedSecret },
  // testrest_two has no key of its own: its account testrest_acct's key signs for it as a meta key.
  'http_signature, meta key': {
    ...server,
    authenticationType: 'http_signature',
    merchantID: 'testrest_two',
    useMetaKey: true,
    portfolioID: 'testrest_acct',
    merchantKeyId: '8f4572ed-8673-4277-8e6d-59dbf3a7c03a',
    merchantsecretKey: 'zFIcTvT1qSaLNQfyFqfHwHuc8ZwV123cMYfiaSjFP9U=',
  },
  'jwt, shared secret (HS256)': { ...server, authenticationType: 'jwt', jwtKeyType: 'SHARED_SECRET', merchantID: 'testrest', ...sharedSecret },
  oauth: { ...server, authenticationType: 'oauth', merchantID: 'testrest', accessToken, refreshToken },
}

for (const [name, configuration] of Object.entries(configurations)) {
  const definitions = new cybersource.ReportDefinitionsApi(configuration, new cybersource.ApiClient())
  const answer = await new Promise((resolve) => definitions.getResourceV2Info({ subscriptionType: 'CUSTOM' }, (error, data) => resolve({ error, data })))
  if (answer.error) {
    console.error(`${name}: HTTP ${answer.error.status}`)
    process.exitCode = 1
  } else console.log(`${name}: ${answer.data.reportDefinitions.length} report definitions`)
}
