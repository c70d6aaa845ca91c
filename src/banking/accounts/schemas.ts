// Wire schemas of the account reads (/v2/accounts…, /v2/account/{accountToken}): one TypeBox schema per object of
// the spec. They validate requests, serialize responses (as allow-lists: nothing else can leave), type the code, and
// generate the OpenAPI document. Detail members the spec does not show are modelled on the Consumer Data Right
// banking standard; see docs/banking.md.
import { Type, type Static } from 'typebox'
import {
  APIAmountString,
  APIBalanceStatusString,
  APICurrencyAmountString,
  APICurrencyString,
  APIDateTimeUTCString,
  APIPCIString,
  APIRateString,
  Money,
  Opt,
  Str,
  strict,
} from '../schemas.js'

// ---- Accounts ----------------------------------------------------------------------------------------------

export const CATEGORIES = ['domestic', 'cards', 'packages'] as const
export type Category = (typeof CATEGORIES)[number]

export const AccountApca = Type.Object({ bsb: Str(7), accountId: Str(20), accountName: Opt(Str(100)) }, strict)
export const CardAccount = Type.Object({ scheme: Opt(Str(30)), cardNumber: APIPCIString, cardExpiry: Opt(APIDateTimeUTCString) }, strict)
export const PackageAccount = Type.Object(
  { description: Opt(Str(200)), portfolioLimit: Opt(APIAmountString), currentLimit: Opt(APIAmountString), availableLimit: Opt(APIAmountString) },
  strict,
)
export const SharedBy = Type.Object({ channelId: Str(64), description: Opt(Str(200)), isCurrentUser: Opt(Type.Boolean()) }, strict)
export const Enrolment = Type.Object(
  {
    partner: Str(64),
    services: Type.Array(Type.Object({ accountingServiceType: Str(64), status: Str(32), sharedBy: Opt(SharedBy) }, strict)),
  },
  strict,
)

/** An account as the list shows it, without its token (the token is assigned by the service). */
export const AccountListFields = Type.Object(
  {
    accountIdDisplay: Str(40),
    accountType: Str(8),
    apiStructType: Opt(Type.Enum(['accountApca', 'cardAccount', 'packageAccount'])),
    accountApca: Opt(AccountApca),
    cardAccount: Opt(CardAccount),
    packageAccount: Opt(PackageAccount),
    code: Opt(Str(16)),
    category: Opt(Type.Enum([...CATEGORIES])),
    nickname: Opt(Str(40)),
    status: Opt(Str(32)),
    availableBalance: Opt(APIAmountString),
    currentBalance: Opt(APIAmountString),
    isVisible: Opt(Type.Boolean()),
    isNominatedAccount: Opt(Type.Boolean()),
    parentRef: Opt(Str(128)),
    ownershipType: Opt(Type.Enum(['soleOwner', 'jointOwner', 'thirdParty'])),
    accountLevelFlags: Opt(Type.Array(Type.Object({ identifier: Str(64), value: Str(64) }, strict))),
    enrolments: Opt(Type.Array(Enrolment)),
  },
  strict,
)
export const AccountListEntry = Type.Object({ accountToken: Type.String(), ...AccountListFields.properties }, strict)

// ---- Balances ----------------------------------------------------------------------------------------------

export const BALANCE_KINDS = ['amountBalance', 'limitBalance', 'purseBalances', 'unitBalance', 'lendingBalance'] as const

export const Balance = Type.Object(
  {
    apiStructType: Type.Enum([...BALANCE_KINDS]),
    balanceStatus: APIBalanceStatusString,
    amountBalance: Opt(Type.Object({ currentBalance: Opt(Money), availableBalance: Money, baseCurrencyBalance: Opt(Money) }, strict)),
    limitBalance: Opt(Type.Object({ currentLimit: Money, availableLimit: Money, setLimit: Money }, strict)),
    purseBalances: Opt(
      Type.Array(Type.Object({ currency: APICurrencyString, currentBalance: APICurrencyAmountString, availableBalance: APICurrencyAmountString }, strict)),
    ),
    unitBalance: Opt(Type.Object({ unitQuantity: Type.Integer({ minimum: 0 }), unitPrice: Money, totalAmount: Money }, strict)),
    lendingBalance: Opt(
      Type.Object({ securityAmount: Money, loanBalance: Money, availableFunds: Money, facilityLimit: Money, marketValue: Money }, strict),
    ),
  },
  strict,
)
export type Balance = Static<typeof Balance>

export const BalanceEntry = Type.Object(
  { accountToken: Type.String(), accountIdDisplay: Type.String(), accountType: Type.String(), category: Type.String(), nickname: Opt(Type.String()), balance: Balance },
  strict,
)

export const QuickBalanceEntry = Type.Object(
  {
    accountToken: Opt(Type.String()),
    bsb: Opt(Type.String()),
    accountId: Opt(Type.String()),
    accountIdDisplay: Opt(Type.String()),
    accountNickname: Opt(Type.String()),
    accountType: Type.String(),
    availableBalance: Opt(APIAmountString),
    currentBalance: Opt(APIAmountString),
    balanceThreshold: Opt(Type.Object({ high: Opt(APIAmountString), low: Opt(APIAmountString) }, strict)),
  },
  strict,
)

// ---- Account details ---------------------------------------------------------------------------------------

export const CurrentAccount = Type.Object(
  {
    availableBalance: Opt(APIAmountString),
    holdBalance: Opt(APIAmountString),
    unclearBalance: Opt(APIAmountString),
    interestEarnedInCurrentTaxYear: APIAmountString,
    interestEarnedInLastTaxYear: Opt(APIAmountString),
    interestEarnedInCurrentMonth: Opt(APIAmountString),
    interestPaidInCurrentTaxYear: Opt(APIAmountString),
    interestPaidInLastTaxYear: Opt(APIAmountString),
    overdraftLimit: Opt(APIAmountString),
    statementsDeliveryType: Opt(Type.Enum(['O', 'P', 'B'])),
    lastStatementGenerated: Opt(APIDateTimeUTCString),
    expiryDate: Opt(APIDateTimeUTCString),
    bpayCode: Opt(Type.Integer({ minimum: 0, maximum: 9_999_999_999 })),
    bpayCustomerReferenceNo: Opt(Type.Integer({ minimum: 0 })),
    netRate: Opt(APIRateString),
    stdRate: Opt(APIRateString),
    bonusRate: Opt(APIRateString),
    tieredRates: Opt(Type.Array(Type.Object({ tier: APIAmountString, rate: APIRateString }, strict))),
    accruedBADTax: Opt(APIAmountString),
    accruedCreditInterest: Opt(APIAmountString),
    accruedDebitInterest: Opt(APIAmountString),
    accruedDebitTax: Opt(APIAmountString),
    statementDeliveryFrequency: Opt(Str(32)),
    term: Opt(Str(32)),
  },
  strict,
)

export const DepositAccount = Type.Object(
  {
    depositNumber: Str(32),
    depositDate: Opt(APIDateTimeUTCString),
    maturityDate: Opt(APIDateTimeUTCString),
    interestNextDue: Opt(APIDateTimeUTCString),
    maturityAmount: Opt(APIAmountString),
    totalInterestPayable: Opt(APIAmountString),
    interestEarnedInCurrentTaxYear: Opt(APIAmountString),
    interestEarnedInLastTaxYear: Opt(APIAmountString),
    depositStatus: Str(32),
    depositTerm: Str(32),
    depositAction: Opt(
      Type.Enum(['REGULAR_TD_OUTSIDE_WINDOW_PERIOD', 'PROPOSED_TD_PARTIALLY_FUNDED', 'PROPOSED_TD_FULLY_FUNDED', 'REGULAR_TD_INSIDE_WINDOW_PERIOD']),
    ),
    interestPayoutFrequency: Str(32),
    netRate: APIRateString,
    stdRate: APIRateString,
    bonusRate: Opt(APIRateString),
    renewalOptionCode: Opt(Str(16)),
  },
  strict,
)

/** The spec gives four fields; the payment fields follow CDR's creditCard object. */
export const CreditCardAccount = Type.Object(
  {
    cardSchemeDesc: Str(40),
    status: Opt(Type.Enum(['CLOSED', 'CANCELLED', 'ACTIVE'])),
    creditLimit: APIAmountString,
    currentLimitChangedDate: Opt(APIDateTimeUTCString),
    minPaymentAmount: Opt(APIAmountString),
    paymentDueAmount: Opt(APIAmountString),
    paymentDueDate: Opt(APIDateTimeUTCString),
    paymentCurrency: Opt(APICurrencyString),
  },
  strict,
)

/** Modelled on CDR's loan object. */
export const LoanAccount = Type.Object(
  {
    originalStartDate: Opt(APIDateTimeUTCString),
    originalLoanAmount: Opt(APIAmountString),
    originalLoanCurrency: Opt(APICurrencyString),
    loanEndDate: Opt(APIDateTimeUTCString),
    nextInstalmentDate: Opt(APIDateTimeUTCString),
    minInstalmentAmount: Opt(APIAmountString),
    maxRedraw: Opt(APIAmountString),
    minRedraw: Opt(APIAmountString),
    repaymentType: Type.Enum(['INTEREST_ONLY', 'PRINCIPAL_AND_INTEREST']),
    repaymentFrequency: Type.String({ description: 'ISO 8601 duration, e.g. P1M', pattern: '^P' }),
    interestRate: Opt(APIRateString),
    offsetAccountEnabled: Opt(Type.Boolean()),
  },
  strict,
)

export const GeneralInsuranceAccount = Type.Object(
  {
    policyNumber: Str(32),
    insurer: Str(100),
    coverType: Str(40),
    sumInsured: Opt(APIAmountString),
    premiumAmount: Opt(APIAmountString),
    premiumFrequency: Opt(Type.String({ pattern: '^P' })),
    policyStartDate: Opt(APIDateTimeUTCString),
    policyEndDate: Opt(APIDateTimeUTCString),
  },
  strict,
)

export const InvestmentFundsAccount = Type.Object(
  {
    fundName: Str(100),
    unitQuantity: Type.Integer({ minimum: 0 }),
    unitPrice: Money,
    marketValue: Money,
    valuationDate: Opt(APIDateTimeUTCString),
    distributionOption: Opt(Type.Enum(['REINVEST', 'PAY_OUT'])),
  },
  strict,
)

export const PortfolioAccount = Type.Object(
  {
    description: Opt(Str(200)),
    portfolioLimit: Opt(APIAmountString),
    currentLimit: Opt(APIAmountString),
    availableLimit: Opt(APIAmountString),
    subAccountCount: Type.Integer({ minimum: 0 }),
  },
  strict,
)

export const TravelCardAccount = Type.Object(
  {
    cardNumber: APIPCIString,
    cardExpiry: Opt(APIDateTimeUTCString),
    status: Opt(Type.Enum(['CLOSED', 'CANCELLED', 'ACTIVE'])),
    purses: Type.Array(Type.Object({ currency: APICurrencyString, balance: APICurrencyAmountString }, strict)),
  },
  strict,
)

export const LeasingAccount = Type.Object(
  {
    assetDescription: Str(200),
    leaseStartDate: Opt(APIDateTimeUTCString),
    leaseEndDate: Opt(APIDateTimeUTCString),
    instalmentAmount: Opt(APIAmountString),
    instalmentFrequency: Opt(Type.String({ pattern: '^P' })),
    nextInstalmentDate: Opt(APIDateTimeUTCString),
    residualValue: Opt(APIAmountString),
  },
  strict,
)

export const DETAIL_KINDS = [
  'currentAccount',
  'depositAccount',
  'creditCardAccount',
  'loanAccount',
  'generalInsuranceAccount',
  'investmentFundsAccount',
  'portfolioAccount',
  'travelCardAccount',
  'leasingAccount',
] as const

/** Account details without the token and display id (taken from the account). */
export const DetailFields = Type.Object(
  {
    nickname: Opt(Str(40)),
    productType: Opt(Str(40)),
    productCode: Str(40),
    productName: Str(100),
    openingDate: Opt(APIDateTimeUTCString),
    isKYCConfirmed: Opt(Type.Boolean()),
    currentBalance: Opt(APIAmountString),
    apiStructType: Type.Enum([...DETAIL_KINDS]),
    currentAccount: Opt(CurrentAccount),
    depositAccount: Opt(DepositAccount),
    creditCardAccount: Opt(CreditCardAccount),
    loanAccount: Opt(LoanAccount),
    generalInsuranceAccount: Opt(GeneralInsuranceAccount),
    investmentFundsAccount: Opt(InvestmentFundsAccount),
    portfolioAccount: Opt(PortfolioAccount),
    travelCardAccount: Opt(TravelCardAccount),
    leasingAccount: Opt(LeasingAccount),
  },
  strict,
)
export type DetailFields = Static<typeof DetailFields>

export const AccountDetails = Type.Object(
  { accountToken: Type.String(), accountIdDisplay: Type.String(), ...DetailFields.properties },
  strict,
)

// ---- Query parameters --------------------------------------------------------------------------------------

export const CategoryQuery = Type.Object({ category: Opt(Type.Enum([...CATEGORIES])) })
export const BalanceQuery = Type.Object({
  category: Opt(Type.Enum([...CATEGORIES])),
  groupId: Opt(Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\w.-]+$' })),
  baseCurrency: Opt(APICurrencyString),
})
export const AccountTokenParams = Type.Object({ accountToken: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) })
