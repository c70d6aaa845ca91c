// The spec's 90 supported time zones (API values for `timeZone`/`timezone`), as listed: data, not code. Some are
// legacy IANA aliases (Asia/Calcutta, America/Godthab), which Node's ICU still resolves.
export const TIME_ZONES: readonly string[] = [
  'Africa/Cairo', 'Africa/Johannesburg', 'Africa/Tripoli', 'Africa/Tunis', 'America/Anchorage', 'America/Bogota',
  'America/Buenos_Aires', 'America/Chicago', 'America/Denver', 'America/Edmonton', 'America/Godthab',
  'America/Halifax', 'America/Indianapolis', 'America/La_Paz', 'America/Los_Angeles', 'America/Mexico_City',
  'America/New_York', 'America/Noronha', 'America/Phoenix', 'America/Sao_Paulo', 'America/St_Johns',
  'America/Vancouver', 'America/Winnipeg', 'Asia/Baku', 'Asia/Bangkok', 'Asia/Calcutta', 'Asia/Dacca', 'Asia/Dubai',
  'Asia/Hong_Kong', 'Asia/Jakarta', 'Asia/Jerusalem', 'Asia/Katmandu', 'Asia/Kuala_Lumpur', 'Asia/Macao',
  'Asia/Magadan', 'Asia/Manila', 'Asia/Rangoon', 'Asia/Riyadh', 'Asia/Saigon', 'Asia/Seoul', 'Asia/Shanghai',
  'Asia/Singapore', 'Asia/Taipei', 'Asia/Tbilisi', 'Asia/Tokyo', 'Asia/Yakutsk', 'Atlantic/Cape_Verde',
  'Australia/Adelaide', 'Australia/Brisbane', 'Australia/Broken_Hill', 'Australia/Darwin', 'Australia/Eucla',
  'Australia/Hobart', 'Australia/Lindeman', 'Australia/Lord_Howe', 'Australia/Melbourne', 'Australia/Perth',
  'Australia/Sydney', 'Europe/Amsterdam', 'Europe/Athens', 'Europe/Belgrade', 'Europe/Berlin', 'Europe/Brussels',
  'Europe/Bucharest', 'Europe/Budapest', 'Europe/Copenhagen', 'Europe/Dublin', 'Europe/Helsinki', 'Europe/Istanbul',
  'Europe/Lisbon', 'Europe/London', 'Europe/Madrid', 'Europe/Malta', 'Europe/Minsk', 'Europe/Monaco',
  'Europe/Moscow', 'Europe/Oslo', 'Europe/Paris', 'Europe/Prague', 'Europe/Riga', 'Europe/Rome', 'Europe/Stockholm',
  'Europe/Vienna', 'Europe/Warsaw', 'Europe/Zurich', 'GMT', 'Pacific/Auckland', 'Pacific/Honolulu',
  'Pacific/Norfolk', 'Pacific/Pago_Pago',
]
