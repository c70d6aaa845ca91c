// Structured JSON logs (pino). Credentials never reach a log line: headers and body members that carry them
// are redacted by path, and secret query parameters are masked in the logged URL.
import { pino, type DestinationStream, type Logger } from 'pino'

const SECRET_QUERY_PARAMS = /([?&](?:code|token|access_token|refresh_token|client_secret|password)=)[^&#]*/gi

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-svc-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-svc-key"]',
  '*.password',
  '*.passcode',
  '*.client_secret',
  '*.refresh_token',
  '*.access_token',
]

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]')
}

interface LoggedRequest {
  method: string
  url: string
  ip: string
  headers: Record<string, string | string[] | undefined>
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
        userAgent: req.headers['user-agent'],
      }),
    },
  }
  return destination ? pino(options, destination) : pino(options)
}
