// Structured JSON logs (pino). Credentials never reach a log line: headers and body members that carry them
// are redacted by path, and secret query parameters are masked in the logged URL.
import { pino, type DestinationStream, type Logger } from 'pino'

// client_id too: a banking client's client_id is its application key (banking spec, Authentication 6).
const SECRET_QUERY_PARAMS = /([?&](?:code|token|access_token|refresh_token|client_secret|client_id|code_verifier|password)=)[^&#]*/gi

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
  '*.code_verifier',
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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/**
 * A request's logger, made into a real pino child only when a line is written at an enabled level. Fastify makes
 * a child per request to bind the correlation id; with redaction that costs a noticeable share of a fast read,
 * and most requests at the default level never log.
 */
class LazyChild {
  #child: Logger | undefined
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object,
  ) {}
  get level(): string {
    return this.#child?.level ?? this.parent.level
  }
  set level(level: string) {
    this.#get().level = level
  }
  #get(): Logger {
    return (this.#child ??= this.parent.child(this.bindings, this.options))
  }
  #write(level: Level, args: unknown[]): void {
    if (this.#child || this.parent.isLevelEnabled(level)) (this.#get()[level] as (...a: unknown[]) => void)(...args)
  }
  fatal(...args: unknown[]) { this.#write('fatal', args) }
  error(...args: unknown[]) { this.#write('error', args) }
  warn(...args: unknown[]) { this.#write('warn', args) }
  info(...args: unknown[]) { this.#write('info', args) }
  debug(...args: unknown[]) { this.#write('debug', args) }
  trace(...args: unknown[]) { this.#write('trace', args) }
  silent() {}
  child(bindings: Record<string, unknown>, options?: object): Logger {
    return this.#get().child(bindings, options)
  }
}

/** Fastify's `childLoggerFactory`: see LazyChild. */
export function lazyChildLogger(logger: Logger, bindings: Record<string, unknown>, options: object): Logger {
  return new LazyChild(logger, bindings, options) as unknown as Logger
}
