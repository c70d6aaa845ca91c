// `finapi requests find <correlation-id>`: an operator finds an API call by the correlation id a caller quotes to
// support (X-CorrelationID, v-c-correlation-id), whichever organization made it. Reads the request log's table
// through its service; help and usage errors load nothing else (see platform/feature.ts FeatureCommands).
import type { Command } from 'commander'
import { CliError, group, JSON_DESCRIPTION, JSON_FLAG, printRows, usageError } from '../platform/cli/kit.js'
import type { FeatureCommands } from '../platform/feature.js'
import type { RequestLogService } from './service.js'

const CORRELATION_ID = /^[\w.:-]{1,128}$/

export function registerRequestLogCommands(program: Command, withLog: <T>(fn: (log: Pick<RequestLogService, 'find'>) => Promise<T>) => Promise<T>): void {
  const requests = group(program, 'requests', 'the API request log: calls of every API family, kept REQUEST_LOG_RETENTION_DAYS')
  const find = requests
    .command('find')
    .summary('find API calls by correlation id, across organizations')
    .usage('<correlation-id> [--json]')
    .description(
      'the API calls with this correlation id (the X-CorrelationID every answer carries), whichever organization made them, newest first: ' +
        'time, organization, method, path (secrets masked), status, milliseconds, scheme, key id. Calls of the last REQUEST_LOG_RETENTION_DAYS days ' +
        '(default 7); a server writes its calls within a quarter of a second',
    )
    .argument('<correlation-id>', 'as the caller quoted it (letters, digits, . _ : -; at most 128)')
    .option(JSON_FLAG, JSON_DESCRIPTION)
    .action(async (id: string, options: { json?: boolean }) => {
      if (!CORRELATION_ID.test(id)) usageError(find, `'${id.slice(0, 140)}' is not a correlation id (letters, digits, '.', '_', ':' and '-', at most 128)`)
      const rows = await withLog((log) => log.find(id))
      if (rows.length === 0 && !options.json) {
        throw new CliError(`no API call with correlation id ${id} in the request log (recorded only while the server runs with REQUEST_LOG=on, sandbox mode's default, kept REQUEST_LOG_RETENTION_DAYS days; is this the server's DATABASE_URL?)`)
      }
      printRows(rows, options.json, ['time', 'organization', 'method', 'path', 'status', 'ms', 'scheme', 'key id', 'correlation id'], (r) => [r.at, r.organizationId, r.method, r.path, r.status, r.durationMs, r.scheme, r.keyId, r.correlationId])
    })
}

export const requestLogCommands: FeatureCommands<RequestLogService> = {
  register: (program, { run }) => registerRequestLogCommands(program, (fn) => run((log) => fn(log))),
}
