// Response shapes written from the banking spec's tables, independently of the route schemas in src/, so a
// schema that drifts from the spec is caught. Each checker returns a list of problems (empty when conforming).

const AMOUNT = /^-?\d{1,16}\.\d{2}$/ // APIAmountString
const CURRENCY_AMOUNT = /^-?\d{1,16}(\.\d{1,3})?$/ // APICurrencyAmountString
const RATE = /^\d{1,16}(\.\d{1,16})?$/ // APIRateString
const CURRENCY = /^[A-Z]{3}$/
const DATETIME_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const PCI = /^\d{6}x{6}\d{4}$/
const URL_SAFE = /^[A-Za-z0-9_-]+$/

type Problems = string[]
type Obj = Record<string, unknown>

type Kind = 'string' | 'boolean' | 'integer' | 'amount' | 'currencyAmount' | 'rate' | 'currency' | 'datetime' | 'pci' | 'money' | 'object' | 'array'

function check(value: unknown, kind: Kind, path: string, out: Problems): void {
  const bad = (): void => void out.push(`${path}: expected ${kind}, got ${JSON.stringify(value)}`)
  switch (kind) {
    case 'string': return void (typeof value !== 'string' && bad())
    case 'boolean': return void (typeof value !== 'boolean' && bad())
    case 'integer': return void (!Number.isInteger(value) && bad())
    case 'amount': return void ((typeof value !== 'string' || !AMOUNT.test(value)) && bad())
    case 'currencyAmount': return void ((typeof value !== 'string' || !CURRENCY_AMOUNT.test(value)) && bad())
    case 'rate': return void ((typeof value !== 'string' || !RATE.test(value)) && bad())
    case 'currency': return void ((typeof value !== 'string' || !CURRENCY.test(value)) && bad())
    case 'datetime': return void ((typeof value !== 'string' || !DATETIME_UTC.test(value)) && bad())
    case 'pci': return void ((typeof value !== 'string' || !PCI.test(value)) && bad())
    case 'object': return void ((typeof value !== 'object' || value === null || Array.isArray(value)) && bad())
    case 'array': return void (!Array.isArray(value) && bad())
    case 'money': {
      if (typeof value !== 'object' || value === null) return bad()
      const m = value as Obj
      check(m['currency'], 'currency', `${path}.currency`, out)
      check(m['amount'], 'currencyAmount', `${path}.amount`, out)
      return
    }
  }
}

/** fields: name → [kind, required] */
function fields(obj: unknown, spec: Record<string, [Kind, boolean]>, path: string, out: Problems): Obj {
  if (typeof obj !== 'object' || obj === null) {
    out.push(`${path}: not an object`)
    return {}
  }
  const o = obj as Obj
  for (const [name, [kind, required]] of Object.entries(spec)) {
    if (o[name] === undefined) {
      if (required) out.push(`${path}.${name}: required`)
    } else check(o[name], kind, `${path}.${name}`, out)
  }
  for (const name of Object.keys(o)) if (!(name in spec)) out.push(`${path}.${name}: not in the spec`)
  return o
}

export function checkStatusOk(body: Obj): Problems {
  const out: Problems = []
  const s = body['status'] as Obj | undefined
  if (s?.['code'] !== 'API-200' || s?.['message'] !== 'Success') out.push(`status: ${JSON.stringify(s)}`)
  return out
}

export function checkLoginResponse(body: Obj): Problems {
  const out = checkStatusOk(body)
  const lr = fields(body['loginResponse'], { tokens: ['array', true], userLevelFlags: ['object', false] }, 'loginResponse', out)
  for (const [i, t] of ((lr['tokens'] as unknown[]) ?? []).entries()) {
    fields(t, { type: ['string', true], name: ['string', true], value: ['string', true], expires: ['datetime', true] }, `tokens[${i}]`, out)
  }
  if (lr['userLevelFlags']) fields(lr['userLevelFlags'], { isBusinessUser: ['boolean', false], isRestrictedToAppTracker: ['boolean', false] }, 'userLevelFlags', out)
  return out
}

export function checkAccountListEntry(a: unknown, path: string): Problems {
  const out: Problems = []
  const o = fields(
    a,
    {
      accountToken: ['string', true],
      accountIdDisplay: ['string', true],
      accountType: ['string', true],
      apiStructType: ['string', false],
      accountApca: ['object', false],
      cardAccount: ['object', false],
      packageAccount: ['object', false],
      code: ['string', false],
      category: ['string', false],
      nickname: ['string', false],
      status: ['string', false],
      availableBalance: ['amount', false],
      currentBalance: ['amount', false],
      isVisible: ['boolean', false],
      isNominatedAccount: ['boolean', false],
      parentRef: ['string', false],
      ownershipType: ['string', false],
      accountLevelFlags: ['array', false],
      enrolments: ['array', false],
    },
    path,
    out,
  )
  if (typeof o['accountToken'] === 'string' && !URL_SAFE.test(o['accountToken'])) out.push(`${path}.accountToken: not URL-safe`)
  if (o['accountApca']) fields(o['accountApca'], { bsb: ['string', true], accountId: ['string', true], accountName: ['string', false] }, `${path}.accountApca`, out)
  if (o['cardAccount']) fields(o['cardAccount'], { scheme: ['string', false], cardNumber: ['pci', true], cardExpiry: ['datetime', false] }, `${path}.cardAccount`, out)
  if (o['packageAccount']) {
    fields(o['packageAccount'], { description: ['string', false], portfolioLimit: ['amount', false], currentLimit: ['amount', false], availableLimit: ['amount', false] }, `${path}.packageAccount`, out)
  }
  if (o['ownershipType'] !== undefined && !['soleOwner', 'jointOwner', 'thirdParty'].includes(o['ownershipType'] as string)) out.push(`${path}.ownershipType`)
  for (const [i, f] of ((o['accountLevelFlags'] as unknown[]) ?? []).entries()) fields(f, { identifier: ['string', true], value: ['string', true] }, `${path}.accountLevelFlags[${i}]`, out)
  for (const [i, e] of ((o['enrolments'] as unknown[]) ?? []).entries()) {
    const en = fields(e, { partner: ['string', true], services: ['array', true] }, `${path}.enrolments[${i}]`, out)
    for (const [j, s] of ((en['services'] as unknown[]) ?? []).entries()) {
      const sv = fields(s, { accountingServiceType: ['string', true], status: ['string', true], sharedBy: ['object', false] }, `${path}.enrolments[${i}].services[${j}]`, out)
      if (sv['sharedBy']) fields(sv['sharedBy'], { channelId: ['string', true], description: ['string', false], isCurrentUser: ['boolean', false] }, `${path}...sharedBy`, out)
    }
  }
  return out
}

export function checkBalanceEntry(a: unknown, path: string): Problems {
  const out: Problems = []
  const o = fields(
    a,
    { accountToken: ['string', true], accountIdDisplay: ['string', true], accountType: ['string', true], category: ['string', true], nickname: ['string', false], balance: ['object', true] },
    path,
    out,
  )
  const b = fields(
    o['balance'],
    {
      apiStructType: ['string', true],
      balanceStatus: ['string', true],
      amountBalance: ['object', false],
      limitBalance: ['object', false],
      purseBalances: ['array', false],
      unitBalance: ['object', false],
      lendingBalance: ['object', false],
    },
    `${path}.balance`,
    out,
  )
  if (!['OK', 'N/A', 'Unavailable'].includes(b['balanceStatus'] as string)) out.push(`${path}.balance.balanceStatus`)
  const members = ['amountBalance', 'limitBalance', 'purseBalances', 'unitBalance', 'lendingBalance'].filter((m) => b[m] !== undefined)
  if (members.length !== 1 || members[0] !== b['apiStructType']) out.push(`${path}.balance.apiStructType does not name the one member present`)
  const p = `${path}.balance`
  if (b['amountBalance']) fields(b['amountBalance'], { currentBalance: ['money', false], availableBalance: ['money', true], baseCurrencyBalance: ['money', false] }, `${p}.amountBalance`, out)
  if (b['limitBalance']) fields(b['limitBalance'], { currentLimit: ['money', true], availableLimit: ['money', true], setLimit: ['money', true] }, `${p}.limitBalance`, out)
  for (const [i, purse] of ((b['purseBalances'] as unknown[]) ?? []).entries()) {
    fields(purse, { currency: ['currency', true], currentBalance: ['currencyAmount', true], availableBalance: ['currencyAmount', true] }, `${p}.purseBalances[${i}]`, out)
  }
  if (b['unitBalance']) fields(b['unitBalance'], { unitQuantity: ['integer', true], unitPrice: ['money', true], totalAmount: ['money', true] }, `${p}.unitBalance`, out)
  if (b['lendingBalance']) {
    fields(
      b['lendingBalance'],
      { securityAmount: ['money', true], loanBalance: ['money', true], availableFunds: ['money', true], facilityLimit: ['money', true], marketValue: ['money', true] },
      `${p}.lendingBalance`,
      out,
    )
  }
  return out
}

export function checkQuickBalanceEntry(a: unknown, path: string): Problems {
  const out: Problems = []
  const o = fields(
    a,
    {
      accountToken: ['string', false],
      bsb: ['string', false],
      accountId: ['string', false],
      accountIdDisplay: ['pci', false],
      accountNickname: ['string', false],
      accountType: ['string', true],
      availableBalance: ['amount', false],
      currentBalance: ['amount', false],
      balanceThreshold: ['object', false],
    },
    path,
    out,
  )
  const type = o['accountType'] as string
  if ((o['bsb'] !== undefined || o['accountId'] !== undefined) && !['DDA', 'SDA', 'TDP'].includes(type)) out.push(`${path}: bsb/accountId on ${type}`)
  if (o['accountIdDisplay'] !== undefined && !['MCD', 'VCD', 'ACD'].includes(type)) out.push(`${path}: accountIdDisplay on ${type}`)
  if (o['balanceThreshold']) fields(o['balanceThreshold'], { high: ['amount', false], low: ['amount', false] }, `${path}.balanceThreshold`, out)
  return out
}

const DETAIL_MEMBERS = ['currentAccount', 'depositAccount', 'creditCardAccount', 'loanAccount', 'generalInsuranceAccount', 'investmentFundsAccount', 'portfolioAccount', 'travelCardAccount', 'leasingAccount']

export function checkAccountDetails(d: unknown): Problems {
  const out: Problems = []
  const spec: Record<string, [Kind, boolean]> = {
    accountToken: ['string', true],
    accountIdDisplay: ['string', true],
    nickname: ['string', false],
    productType: ['string', false],
    productCode: ['string', true],
    productName: ['string', true],
    openingDate: ['datetime', false],
    isKYCConfirmed: ['boolean', false],
    currentBalance: ['amount', false],
    apiStructType: ['string', true],
  }
  for (const m of DETAIL_MEMBERS) spec[m] = ['object', false]
  const o = fields(d, spec, 'accountDetailsResponse', out)
  const present = DETAIL_MEMBERS.filter((m) => o[m] !== undefined)
  if (present.length !== 1 || present[0] !== o['apiStructType']) out.push('apiStructType does not name the one member present')
  if (o['currentAccount']) {
    const amounts = ['availableBalance', 'holdBalance', 'unclearBalance', 'interestEarnedInLastTaxYear', 'interestEarnedInCurrentMonth', 'interestPaidInCurrentTaxYear', 'interestPaidInLastTaxYear', 'overdraftLimit', 'accruedBADTax', 'accruedCreditInterest', 'accruedDebitInterest', 'accruedDebitTax']
    const ca: Record<string, [Kind, boolean]> = { interestEarnedInCurrentTaxYear: ['amount', true] }
    for (const a of amounts) ca[a] = ['amount', false]
    Object.assign(ca, {
      statementsDeliveryType: ['string', false],
      lastStatementGenerated: ['datetime', false],
      expiryDate: ['datetime', false],
      bpayCode: ['integer', false],
      bpayCustomerReferenceNo: ['integer', false],
      netRate: ['rate', false],
      stdRate: ['rate', false],
      bonusRate: ['rate', false],
      tieredRates: ['array', false],
      statementDeliveryFrequency: ['string', false],
      term: ['string', false],
    })
    const c = fields(o['currentAccount'], ca, 'currentAccount', out)
    if (c['statementsDeliveryType'] !== undefined && !['O', 'P', 'B'].includes(c['statementsDeliveryType'] as string)) out.push('currentAccount.statementsDeliveryType')
    for (const [i, t] of ((c['tieredRates'] as unknown[]) ?? []).entries()) fields(t, { tier: ['amount', true], rate: ['rate', true] }, `tieredRates[${i}]`, out)
  }
  if (o['depositAccount']) {
    fields(
      o['depositAccount'],
      {
        depositNumber: ['string', true],
        depositDate: ['datetime', false],
        maturityDate: ['datetime', false],
        interestNextDue: ['datetime', false],
        maturityAmount: ['amount', false],
        totalInterestPayable: ['amount', false],
        interestEarnedInCurrentTaxYear: ['amount', false],
        interestEarnedInLastTaxYear: ['amount', false],
        depositStatus: ['string', true],
        depositTerm: ['string', true],
        depositAction: ['string', false],
        interestPayoutFrequency: ['string', true],
        netRate: ['rate', true],
        stdRate: ['rate', true],
        bonusRate: ['rate', false],
        renewalOptionCode: ['string', false],
      },
      'depositAccount',
      out,
    )
  }
  if (o['creditCardAccount']) {
    const cc = o['creditCardAccount'] as Obj
    check(cc['cardSchemeDesc'], 'string', 'creditCardAccount.cardSchemeDesc', out)
    check(cc['creditLimit'], 'amount', 'creditCardAccount.creditLimit', out)
    if (cc['status'] !== undefined && !['CLOSED', 'CANCELLED', 'ACTIVE'].includes(cc['status'] as string)) out.push('creditCardAccount.status')
  }
  return out
}
