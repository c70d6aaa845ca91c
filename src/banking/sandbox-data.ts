// The sandbox's fixed data set: two customers, their working credentials, every kind of account, exchange rates.
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto'
import type { ImportAccount, ImportCustomer, ImportFile } from './accounts/import-schema.js'

export const SANDBOX_CUSTOMER_1_ID = 'sandbox-customer-1'
export const SANDBOX_CUSTOMER_2_ID = 'sandbox-customer-2'

// ---- The sandbox device key ----------------------------------------------------------------------------------

/** Seed of the sandbox device's Ed25519 key. It is public on purpose: the sandbox holds no real money. */
export const SANDBOX_DEVICE_SEED_HEX = '24ed97fe3b4a740b4ad4020e1c2b09b4ca8fa24f845db2358f54127528e7b197'

/** DER prefix that wraps a raw 32-byte Ed25519 seed as a PKCS #8 private key. */
const ED25519_PKCS8_PREFIX = '302e020100300506032b657004220420'

const deviceKey = createPrivateKey({
  key: Buffer.concat([Buffer.from(ED25519_PKCS8_PREFIX, 'hex'), Buffer.from(SANDBOX_DEVICE_SEED_HEX, 'hex')]),
  format: 'der',
  type: 'pkcs8',
})

/** Signs deviceRegIdPasscode logins of the sandbox device (see `passcodeSigningInput`). */
export const SANDBOX_DEVICE_PRIVATE_KEY_PEM: string = deviceKey.export({ type: 'pkcs8', format: 'pem' }).toString()
/** Registered with the sandbox device's deviceRegIdPasscode credential. */
export const SANDBOX_DEVICE_PUBLIC_KEY_PEM: string = createPublicKey(deviceKey).export({ type: 'spki', format: 'pem' }).toString()

// ---- Credentials ---------------------------------------------------------------------------------------------

const NAB = { brand: 'nab', lob: 'nab' } as const
const SANDBOX_DEVICE_ID = 'sandbox-device-0001'

/** Every credential that signs in to the sandbox, for tests and the README. */
export const SANDBOX_LOGINS = {
  usernamePassword: { ...NAB, customerId: SANDBOX_CUSTOMER_1_ID, username: '10055670', password: 'aaa111' },
  customer2: { ...NAB, customerId: SANDBOX_CUSTOMER_2_ID, username: '10055671', password: 'bbb222' },
  deviceRegIdPasscode: { ...NAB, customerId: SANDBOX_CUSTOMER_1_ID, deviceRegId: SANDBOX_DEVICE_ID, passcode: '246810' },
  deviceRegIdPassword: { ...NAB, customerId: SANDBOX_CUSTOMER_1_ID, deviceRegId: SANDBOX_DEVICE_ID, password: 'ccc333' },
  deviceRegIdFingerprint: { ...NAB, customerId: SANDBOX_CUSTOMER_1_ID, deviceRegId: SANDBOX_DEVICE_ID, key: 'fp-key-5f3c9a7e21d84b06' },
  ivrPasscode: { ...NAB, customerId: SANDBOX_CUSTOMER_1_ID, username: '10055670', passcode: '135790' },
  partyIdentifiers: {
    ...NAB,
    customerId: SANDBOX_CUSTOMER_1_ID,
    firstGivenName: 'Alex',
    surname: 'Citizen',
    dateOfBirth: '19850412',
    mobile: '0412345678',
  },
} as const

// ---- Helpers -------------------------------------------------------------------------------------------------

interface MoneyValue {
  currency: string
  amount: string
}

const aud = (amount: string): MoneyValue => ({ currency: 'AUD', amount })
const usd = (amount: string): MoneyValue => ({ currency: 'USD', amount })

/** The deterministic token clients see for an account: base64url of sha256('sandbox:' + id), 43 characters. */
function accountToken(id: string): string {
  return createHash('sha256').update(`sandbox:${id}`).digest('base64url')
}

/** An account with its token, which is derived from its id so the data set is the same on every run. */
function withToken({ id, ...rest }: Omit<ImportAccount, 'accountToken'>): ImportAccount {
  return { id, accountToken: accountToken(id), ...rest }
}

const BSB = '083047'
const apca = (accountId: string, accountName: string) => ({
  apiStructType: 'accountApca' as const,
  accountIdDisplay: `${BSB}-${accountId}`,
  accountApca: { bsb: BSB, accountId, accountName },
})
const card = (scheme: string, cardNumber: string, cardExpiry: string) => ({
  apiStructType: 'cardAccount' as const,
  accountIdDisplay: cardNumber,
  cardAccount: { scheme, cardNumber, cardExpiry },
})

const PAYMENT_FLAGS = [
  { identifier: 'isEligibleForPayments', value: 'true' },
  { identifier: 'isEligibleForTransfers', value: 'true' },
]

// ---- Exchange rates ------------------------------------------------------------------------------------------

/** `amount in from × rate = amount in to`. The inverse rates are 1 / rate, to 16 decimals. */
const EXCHANGE_RATES = [
  { from: 'AUD', to: 'USD', rate: '0.65' },
  { from: 'USD', to: 'AUD', rate: '1.5384615384615385' },
  { from: 'AUD', to: 'EUR', rate: '0.6' },
  { from: 'EUR', to: 'AUD', rate: '1.6666666666666667' },
  { from: 'AUD', to: 'GBP', rate: '0.52' },
  { from: 'GBP', to: 'AUD', rate: '1.9230769230769231' },
  { from: 'AUD', to: 'NZD', rate: '1.09' },
  { from: 'NZD', to: 'AUD', rate: '0.9174311926605505' },
  { from: 'USD', to: 'EUR', rate: '0.9230769230769231' },
  { from: 'EUR', to: 'USD', rate: '1.0833333333333333' },
  { from: 'USD', to: 'GBP', rate: '0.8' },
  { from: 'GBP', to: 'USD', rate: '1.25' },
]

// ---- Customer 1: a person holding every kind of account ------------------------------------------------------

const C1_PORTFOLIO_ID = 'c1-portfolio'

function customer1Accounts(): ImportAccount[] {
  return [
    withToken({
      id: 'c1-everyday',
      category: 'domestic',
      groupId: 'everyday',
      account: {
        ...apca('880169858', 'A CITIZEN'),
        accountType: 'DDA',
        code: 'CHQ',
        category: 'domestic',
        nickname: 'Everyday',
        status: 'ACTIVE',
        availableBalance: '4180.25',
        currentBalance: '4250.75',
        isVisible: true,
        isNominatedAccount: true,
        ownershipType: 'soleOwner',
        accountLevelFlags: PAYMENT_FLAGS,
        enrolments: [
          {
            partner: 'xero',
            services: [
              {
                accountingServiceType: 'bankFeed',
                status: 'ACTIVE',
                sharedBy: { channelId: 'ib', description: 'Shared from Internet Banking by Alex Citizen', isCurrentUser: true },
              },
              { accountingServiceType: 'statementExport', status: 'INACTIVE' },
            ],
          },
        ],
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('4250.75'), availableBalance: aud('4180.25') } },
      balanceThreshold: { high: '10000.00', low: '100.00' },
      details: {
        nickname: 'Everyday',
        productType: 'Transaction',
        productCode: 'CLASSIC',
        productName: 'NAB Classic Banking',
        openingDate: '2015-03-02T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '4250.75',
        apiStructType: 'currentAccount',
        currentAccount: {
          availableBalance: '4180.25',
          holdBalance: '70.50',
          unclearBalance: '0.00',
          interestEarnedInCurrentTaxYear: '1.20',
          interestEarnedInLastTaxYear: '3.85',
          interestEarnedInCurrentMonth: '0.10',
          interestPaidInCurrentTaxYear: '0.00',
          interestPaidInLastTaxYear: '0.00',
          overdraftLimit: '500.00',
          statementsDeliveryType: 'O',
          lastStatementGenerated: '2025-06-30T00:00:00Z',
          bpayCode: 2345,
          bpayCustomerReferenceNo: 880169858,
          netRate: '0.01',
          stdRate: '0.01',
          bonusRate: '0',
          tieredRates: [
            { tier: '0.00', rate: '0.01' },
            { tier: '5000.00', rate: '0.05' },
            { tier: '20000.00', rate: '0.10' },
          ],
          accruedBADTax: '0.00',
          accruedCreditInterest: '0.04',
          accruedDebitInterest: '0.00',
          accruedDebitTax: '0.00',
          statementDeliveryFrequency: 'MONTHLY',
          term: 'ONGOING',
        },
      },
    }),
    withToken({
      id: 'c1-savings',
      category: 'domestic',
      groupId: 'savings',
      account: {
        ...apca('880170112', 'A CITIZEN & J CITIZEN'),
        accountType: 'SDA',
        code: 'SAV',
        category: 'domestic',
        nickname: 'Holiday savings',
        status: 'ACTIVE',
        availableBalance: '25000.00',
        currentBalance: '25000.00',
        isVisible: true,
        isNominatedAccount: false,
        ownershipType: 'jointOwner',
        accountLevelFlags: [{ identifier: 'isEligibleForTransfers', value: 'true' }],
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('25000.00'), availableBalance: aud('25000.00') } },
      balanceThreshold: { low: '1000.00' },
      details: {
        nickname: 'Holiday savings',
        productType: 'Savings',
        productCode: 'ISAVER',
        productName: 'NAB iSaver',
        openingDate: '2018-11-20T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '25000.00',
        apiStructType: 'currentAccount',
        currentAccount: {
          availableBalance: '25000.00',
          holdBalance: '0.00',
          interestEarnedInCurrentTaxYear: '101.04',
          interestEarnedInLastTaxYear: '987.65',
          interestEarnedInCurrentMonth: '101.04',
          statementsDeliveryType: 'B',
          lastStatementGenerated: '2025-06-30T00:00:00Z',
          netRate: '4.85',
          stdRate: '1.10',
          bonusRate: '3.75',
          accruedCreditInterest: '33.22',
          statementDeliveryFrequency: 'QUARTERLY',
        },
      },
    }),
    withToken({
      id: 'c1-term-deposit',
      category: 'domestic',
      groupId: 'savings',
      account: {
        ...apca('880170339', 'A CITIZEN'),
        accountType: 'TDP',
        code: 'TD',
        category: 'domestic',
        nickname: 'Term deposit',
        status: 'ACTIVE',
        availableBalance: '0.00',
        currentBalance: '50000.00',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('50000.00'), availableBalance: aud('0.00') } },
      details: {
        nickname: 'Term deposit',
        productType: 'Term deposit',
        productCode: 'TD12M',
        productName: 'NAB Term Deposit 12 months',
        openingDate: '2025-01-15T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '50000.00',
        apiStructType: 'depositAccount',
        depositAccount: {
          depositNumber: 'TD-0001-880170339',
          depositDate: '2025-01-15T00:00:00Z',
          maturityDate: '2026-01-15T00:00:00Z',
          interestNextDue: '2026-01-15T00:00:00Z',
          maturityAmount: '52250.00',
          totalInterestPayable: '2250.00',
          interestEarnedInCurrentTaxYear: '1012.50',
          interestEarnedInLastTaxYear: '1237.50',
          depositStatus: 'ACTIVE',
          depositTerm: '12 months',
          depositAction: 'REGULAR_TD_OUTSIDE_WINDOW_PERIOD',
          interestPayoutFrequency: 'AT_MATURITY',
          netRate: '4.50',
          stdRate: '4.25',
          bonusRate: '0.25',
          renewalOptionCode: 'RPI',
        },
      },
    }),
    withToken({
      id: 'c1-mastercard',
      category: 'cards',
      groupId: 'cards',
      account: {
        ...card('MASTERCARD', '517000xxxxxx1234', '2028-09-30T00:00:00Z'),
        accountType: 'MCD',
        code: 'CC',
        category: 'cards',
        nickname: 'Low Rate card',
        status: 'ACTIVE',
        availableBalance: '8765.43',
        currentBalance: '-1234.57',
        isVisible: true,
        ownershipType: 'soleOwner',
        accountLevelFlags: [{ identifier: 'isEligibleForPayments', value: 'true' }],
      },
      balance: {
        apiStructType: 'limitBalance',
        balanceStatus: 'OK',
        limitBalance: { currentLimit: aud('10000.00'), availableLimit: aud('8765.43'), setLimit: aud('10000.00') },
      },
      balanceThreshold: { low: '500.00' },
      details: {
        nickname: 'Low Rate card',
        productType: 'Credit card',
        productCode: 'LOWRATE-MC',
        productName: 'NAB Low Rate Card',
        openingDate: '2020-09-01T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '-1234.57',
        apiStructType: 'creditCardAccount',
        creditCardAccount: {
          cardSchemeDesc: 'Mastercard',
          status: 'ACTIVE',
          creditLimit: '10000.00',
          currentLimitChangedDate: '2023-04-18T00:00:00Z',
          minPaymentAmount: '37.04',
          paymentDueAmount: '1234.57',
          paymentDueDate: '2025-07-25T00:00:00Z',
          paymentCurrency: 'AUD',
        },
      },
    }),
    withToken({
      id: 'c1-visa-debit',
      category: 'cards',
      groupId: 'cards',
      account: {
        ...card('VISA', '456789xxxxxx4321', '2027-05-31T00:00:00Z'),
        accountType: 'VCD',
        code: 'DC',
        category: 'cards',
        nickname: 'Visa Debit',
        status: 'ACTIVE',
        availableBalance: '1520.40',
        currentBalance: '1520.40',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('1520.40'), availableBalance: aud('1520.40') } },
      details: {
        nickname: 'Visa Debit',
        productType: 'Debit card',
        productCode: 'VISADEBIT',
        productName: 'NAB Visa Debit',
        openingDate: '2022-05-10T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '1520.40',
        apiStructType: 'currentAccount',
        currentAccount: {
          availableBalance: '1520.40',
          holdBalance: '0.00',
          interestEarnedInCurrentTaxYear: '0.00',
          statementsDeliveryType: 'O',
          expiryDate: '2027-05-31T00:00:00Z',
        },
      },
    }),
    withToken({
      id: 'c1-amex',
      category: 'cards',
      groupId: 'cards',
      account: {
        ...card('AMEX', '376543xxxxxx1005', '2029-01-31T00:00:00Z'),
        accountType: 'ACD',
        code: 'CC',
        category: 'cards',
        nickname: 'Velocity Amex',
        status: 'ACTIVE',
        availableBalance: '14200.00',
        currentBalance: '-800.00',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: {
        apiStructType: 'limitBalance',
        balanceStatus: 'OK',
        limitBalance: { currentLimit: aud('15000.00'), availableLimit: aud('14200.00'), setLimit: aud('15000.00') },
      },
      details: {
        nickname: 'Velocity Amex',
        productType: 'Credit card',
        productCode: 'AMEX-VEL',
        productName: 'NAB Qantas Rewards Premium American Express',
        openingDate: '2024-02-14T00:00:00Z',
        currentBalance: '-800.00',
        apiStructType: 'creditCardAccount',
        creditCardAccount: { cardSchemeDesc: 'American Express', status: 'ACTIVE', creditLimit: '15000.00', paymentDueAmount: '800.00', paymentCurrency: 'AUD' },
      },
    }),
    withToken({
      id: 'c1-travel-card',
      category: 'cards',
      groupId: 'cards',
      account: {
        ...card('MASTERCARD', '535318xxxxxx7788', '2028-03-31T00:00:00Z'),
        accountType: 'TCD',
        code: 'TC',
        category: 'cards',
        nickname: 'Travel card',
        status: 'ACTIVE',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: {
        apiStructType: 'purseBalances',
        balanceStatus: 'OK',
        purseBalances: [
          { currency: 'AUD', currentBalance: '250.50', availableBalance: '250.50' },
          { currency: 'USD', currentBalance: '1200.125', availableBalance: '1150.125' },
          { currency: 'EUR', currentBalance: '300', availableBalance: '300' },
        ],
      },
      details: {
        nickname: 'Travel card',
        productType: 'Travel card',
        productCode: 'TRAVEL-MC',
        productName: 'NAB Traveller Card',
        openingDate: '2024-11-01T00:00:00Z',
        apiStructType: 'travelCardAccount',
        travelCardAccount: {
          cardNumber: '535318xxxxxx7788',
          cardExpiry: '2028-03-31T00:00:00Z',
          status: 'ACTIVE',
          purses: [
            { currency: 'AUD', balance: '250.50' },
            { currency: 'USD', balance: '1200.125' },
            { currency: 'EUR', balance: '300' },
          ],
        },
      },
    }),
    withToken({
      id: 'c1-home-loan',
      category: 'domestic',
      groupId: 'loans',
      account: {
        ...apca('880171447', 'A CITIZEN & J CITIZEN'),
        accountType: 'HLN',
        code: 'HL',
        category: 'domestic',
        nickname: 'Home loan',
        status: 'ACTIVE',
        availableBalance: '15000.00',
        currentBalance: '-412345.67',
        isVisible: true,
        ownershipType: 'jointOwner',
      },
      balance: {
        apiStructType: 'lendingBalance',
        balanceStatus: 'OK',
        lendingBalance: {
          securityAmount: aud('850000.00'),
          loanBalance: aud('-412345.67'),
          availableFunds: aud('15000.00'),
          facilityLimit: aud('500000.00'),
          marketValue: aud('850000.00'),
        },
      },
      details: {
        nickname: 'Home loan',
        productType: 'Home loan',
        productCode: 'HL-BASIC-VAR',
        productName: 'NAB Base Variable Rate Home Loan',
        openingDate: '2020-03-01T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '-412345.67',
        apiStructType: 'loanAccount',
        loanAccount: {
          originalStartDate: '2020-03-01T00:00:00Z',
          originalLoanAmount: '500000.00',
          originalLoanCurrency: 'AUD',
          loanEndDate: '2050-03-01T00:00:00Z',
          nextInstalmentDate: '2025-07-15T00:00:00Z',
          minInstalmentAmount: '2650.00',
          maxRedraw: '15000.00',
          minRedraw: '500.00',
          repaymentType: 'PRINCIPAL_AND_INTEREST',
          repaymentFrequency: 'P1M',
          interestRate: '6.04',
          offsetAccountEnabled: true,
        },
      },
    }),
    withToken({
      id: C1_PORTFOLIO_ID,
      category: 'packages',
      groupId: 'portfolio',
      account: {
        apiStructType: 'packageAccount',
        accountIdDisplay: 'PF-770012345',
        accountType: 'PKG',
        code: 'PKG',
        category: 'packages',
        nickname: 'Business portfolio',
        status: 'ACTIVE',
        isVisible: true,
        ownershipType: 'soleOwner',
        packageAccount: {
          description: 'NAB Choice Package portfolio',
          portfolioLimit: '9999999999999999.99',
          currentLimit: '250000.00',
          availableLimit: '9999999999999999.99',
        },
      },
      balance: {
        apiStructType: 'limitBalance',
        balanceStatus: 'OK',
        limitBalance: { currentLimit: aud('250000.00'), availableLimit: aud('9999999999999999.99'), setLimit: aud('9999999999999999.99') },
      },
      details: {
        nickname: 'Business portfolio',
        productType: 'Portfolio',
        productCode: 'CHOICE-PKG',
        productName: 'NAB Choice Package',
        openingDate: '2019-07-01T00:00:00Z',
        isKYCConfirmed: true,
        apiStructType: 'portfolioAccount',
        portfolioAccount: {
          description: 'NAB Choice Package portfolio',
          portfolioLimit: '9999999999999999.99',
          currentLimit: '250000.00',
          availableLimit: '9999999999999999.99',
          subAccountCount: 2,
        },
      },
    }),
    withToken({
      id: 'c1-line-of-credit',
      category: 'packages',
      groupId: 'portfolio',
      account: {
        ...apca('880172006', 'A CITIZEN'),
        accountType: 'LOC',
        code: 'LOC',
        category: 'packages',
        nickname: 'Line of credit',
        status: 'ACTIVE',
        availableBalance: '151750.00',
        currentBalance: '-48250.00',
        isVisible: true,
        parentRef: C1_PORTFOLIO_ID,
        ownershipType: 'soleOwner',
      },
      balance: {
        apiStructType: 'lendingBalance',
        balanceStatus: 'OK',
        lendingBalance: {
          securityAmount: aud('300000.00'),
          loanBalance: aud('-48250.00'),
          availableFunds: aud('151750.00'),
          facilityLimit: aud('200000.00'),
          marketValue: aud('300000.00'),
        },
      },
      details: {
        nickname: 'Line of credit',
        productType: 'Line of credit',
        productCode: 'LOC-BUS',
        productName: 'NAB Business Line of Credit',
        openingDate: '2019-07-01T00:00:00Z',
        currentBalance: '-48250.00',
        apiStructType: 'loanAccount',
        loanAccount: {
          originalStartDate: '2019-07-01T00:00:00Z',
          originalLoanAmount: '200000.00',
          originalLoanCurrency: 'AUD',
          nextInstalmentDate: '2025-07-31T00:00:00Z',
          minInstalmentAmount: '331.72',
          maxRedraw: '151750.00',
          repaymentType: 'INTEREST_ONLY',
          repaymentFrequency: 'P1M',
          interestRate: '8.25',
          offsetAccountEnabled: false,
        },
      },
    }),
    withToken({
      id: 'c1-lease',
      category: 'packages',
      groupId: 'portfolio',
      account: {
        accountIdDisplay: 'LSE-4400123',
        accountType: 'LSE',
        code: 'LSE',
        category: 'packages',
        nickname: 'Ute lease',
        status: 'ACTIVE',
        availableBalance: '0.00',
        currentBalance: '-12500.00',
        isVisible: true,
        parentRef: C1_PORTFOLIO_ID,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('-12500.00'), availableBalance: aud('0.00') } },
      details: {
        nickname: 'Ute lease',
        productType: 'Lease',
        productCode: 'EQ-LEASE',
        productName: 'NAB Equipment Lease',
        openingDate: '2023-02-01T00:00:00Z',
        currentBalance: '-12500.00',
        apiStructType: 'leasingAccount',
        leasingAccount: {
          assetDescription: '2023 utility vehicle, dual cab',
          leaseStartDate: '2023-02-01T00:00:00Z',
          leaseEndDate: '2027-01-31T00:00:00Z',
          instalmentAmount: '685.40',
          instalmentFrequency: 'P1M',
          nextInstalmentDate: '2025-08-01T00:00:00Z',
          residualValue: '18000.00',
        },
      },
    }),
    withToken({
      id: 'c1-investment-fund',
      category: 'domestic',
      groupId: 'investments',
      account: {
        accountIdDisplay: 'INV-5500123',
        accountType: 'INV',
        code: 'INV',
        category: 'domestic',
        nickname: 'Balanced fund',
        status: 'ACTIVE',
        currentBalance: '15425.00',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: {
        apiStructType: 'unitBalance',
        balanceStatus: 'OK',
        unitBalance: { unitQuantity: 12500, unitPrice: aud('1.234'), totalAmount: aud('15425.00') },
      },
      details: {
        nickname: 'Balanced fund',
        productType: 'Managed fund',
        productCode: 'FUND-BAL',
        productName: 'Sandbox Balanced Growth Fund',
        openingDate: '2021-08-16T00:00:00Z',
        currentBalance: '15425.00',
        apiStructType: 'investmentFundsAccount',
        investmentFundsAccount: {
          fundName: 'Sandbox Balanced Growth Fund',
          unitQuantity: 12500,
          unitPrice: aud('1.234'),
          marketValue: aud('15425.00'),
          valuationDate: '2025-06-30T00:00:00Z',
          distributionOption: 'REINVEST',
        },
      },
    }),
    withToken({
      id: 'c1-home-insurance',
      category: 'domestic',
      groupId: 'insurance',
      account: {
        accountIdDisplay: 'INS-HOM778899',
        accountType: 'INS',
        code: 'INS',
        category: 'domestic',
        nickname: 'Home and contents',
        status: 'ACTIVE',
        isVisible: true,
        ownershipType: 'jointOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'N/A', amountBalance: { currentBalance: aud('0.00'), availableBalance: aud('0.00') } },
      details: {
        nickname: 'Home and contents',
        productType: 'General insurance',
        productCode: 'HOME-CONTENTS',
        productName: 'Home and Contents Insurance',
        openingDate: '2024-10-01T00:00:00Z',
        apiStructType: 'generalInsuranceAccount',
        generalInsuranceAccount: {
          policyNumber: 'HOM778899',
          insurer: 'Sandbox General Insurance Ltd',
          coverType: 'Home and contents',
          sumInsured: '950000.00',
          premiumAmount: '182.35',
          premiumFrequency: 'P1M',
          policyStartDate: '2024-10-01T00:00:00Z',
          policyEndDate: '2025-09-30T00:00:00Z',
        },
      },
    }),
    withToken({
      id: 'c1-usd-account',
      category: 'domestic',
      groupId: 'foreign-currency',
      account: {
        ...apca('880172233', 'A CITIZEN'),
        accountType: 'FCA',
        code: 'FCA',
        category: 'domestic',
        nickname: 'US dollars',
        status: 'ACTIVE',
        availableBalance: '3200.00',
        currentBalance: '3200.00',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: usd('3200.00'), availableBalance: usd('3200.00') } },
      details: {
        nickname: 'US dollars',
        productType: 'Foreign currency',
        productCode: 'FCA-USD',
        productName: 'NAB Foreign Currency Account (USD)',
        openingDate: '2023-06-05T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '3200.00',
        apiStructType: 'currentAccount',
        currentAccount: { availableBalance: '3200.00', interestEarnedInCurrentTaxYear: '0.00', statementsDeliveryType: 'O', netRate: '0.25' },
      },
    }),
    withToken({
      id: 'c1-old-savings',
      category: 'domestic',
      groupId: 'savings',
      account: {
        ...apca('880168001', 'A CITIZEN'),
        accountType: 'SDA',
        code: 'SAV',
        category: 'domestic',
        nickname: 'Old savings',
        status: 'DORMANT',
        isVisible: false,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'Unavailable', amountBalance: { availableBalance: aud('0.00') } },
      details: {
        nickname: 'Old savings',
        productType: 'Savings',
        productCode: 'REWARD-SAVER',
        productName: 'NAB Reward Saver',
        openingDate: '2009-04-01T00:00:00Z',
        apiStructType: 'currentAccount',
        currentAccount: { interestEarnedInCurrentTaxYear: '0.00', interestEarnedInLastTaxYear: '0.02', statementsDeliveryType: 'P' },
      },
    }),
  ]
}

function customer1(): ImportCustomer {
  const l = SANDBOX_LOGINS
  return {
    id: SANDBOX_CUSTOMER_1_ID,
    ...NAB,
    isBusiness: false,
    credentials: [
      { kind: 'usernamePassword', username: l.usernamePassword.username, secret: l.usernamePassword.password },
      {
        kind: 'deviceRegIdPasscode',
        deviceRegId: l.deviceRegIdPasscode.deviceRegId,
        secret: l.deviceRegIdPasscode.passcode,
        publicKey: SANDBOX_DEVICE_PUBLIC_KEY_PEM,
      },
      { kind: 'deviceRegIdPassword', deviceRegId: l.deviceRegIdPassword.deviceRegId, secret: l.deviceRegIdPassword.password },
      { kind: 'deviceRegIdFingerprint', deviceRegId: l.deviceRegIdFingerprint.deviceRegId, secret: l.deviceRegIdFingerprint.key },
      { kind: 'ivrPasscode', username: l.ivrPasscode.username, secret: l.ivrPasscode.passcode },
      {
        kind: 'partyIdentifiers',
        firstGivenName: l.partyIdentifiers.firstGivenName,
        surname: l.partyIdentifiers.surname,
        dateOfBirth: l.partyIdentifiers.dateOfBirth,
        mobile: l.partyIdentifiers.mobile,
      },
    ],
    accounts: customer1Accounts(),
  }
}

// ---- Customer 2: a business with one account in each category ------------------------------------------------

function customer2Accounts(): ImportAccount[] {
  return [
    withToken({
      id: 'c2-business-everyday',
      category: 'domestic',
      groupId: 'everyday',
      account: {
        apiStructType: 'accountApca',
        accountIdDisplay: '083170-551234567',
        accountApca: { bsb: '083170', accountId: '551234567', accountName: 'CITIZEN TRADING PTY LTD' },
        accountType: 'DDA',
        code: 'CHQ',
        category: 'domestic',
        nickname: 'Operating account',
        status: 'ACTIVE',
        availableBalance: '68420.10',
        currentBalance: '68420.10',
        isVisible: true,
        isNominatedAccount: true,
        ownershipType: 'soleOwner',
        accountLevelFlags: PAYMENT_FLAGS,
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('68420.10'), availableBalance: aud('68420.10') } },
      balanceThreshold: { high: '100000.00', low: '5000.00' },
      details: {
        nickname: 'Operating account',
        productType: 'Transaction',
        productCode: 'BUS-EVERYDAY',
        productName: 'NAB Business Everyday Account',
        openingDate: '2017-02-13T00:00:00Z',
        isKYCConfirmed: true,
        currentBalance: '68420.10',
        apiStructType: 'currentAccount',
        currentAccount: { availableBalance: '68420.10', holdBalance: '0.00', interestEarnedInCurrentTaxYear: '0.00', statementsDeliveryType: 'O' },
      },
    }),
    withToken({
      id: 'c2-business-visa-debit',
      category: 'cards',
      groupId: 'cards',
      account: {
        ...card('VISA', '456789xxxxxx9876', '2027-11-30T00:00:00Z'),
        accountType: 'VCD',
        code: 'DC',
        category: 'cards',
        nickname: 'Business Visa Debit',
        status: 'ACTIVE',
        availableBalance: '68420.10',
        currentBalance: '68420.10',
        isVisible: true,
        ownershipType: 'soleOwner',
      },
      balance: { apiStructType: 'amountBalance', balanceStatus: 'OK', amountBalance: { currentBalance: aud('68420.10'), availableBalance: aud('68420.10') } },
      details: {
        nickname: 'Business Visa Debit',
        productType: 'Debit card',
        productCode: 'BUS-VISADEBIT',
        productName: 'NAB Business Visa Debit',
        openingDate: '2017-02-13T00:00:00Z',
        currentBalance: '68420.10',
        apiStructType: 'currentAccount',
        currentAccount: { availableBalance: '68420.10', interestEarnedInCurrentTaxYear: '0.00', expiryDate: '2027-11-30T00:00:00Z' },
      },
    }),
    withToken({
      id: 'c2-business-portfolio',
      category: 'packages',
      groupId: 'portfolio',
      account: {
        apiStructType: 'packageAccount',
        accountIdDisplay: 'PF-770098765',
        accountType: 'PKG',
        code: 'PKG',
        category: 'packages',
        nickname: 'Trading portfolio',
        status: 'ACTIVE',
        isVisible: true,
        ownershipType: 'soleOwner',
        packageAccount: { description: 'NAB Business Choice portfolio', portfolioLimit: '500000.00', currentLimit: '500000.00', availableLimit: '500000.00' },
      },
      balance: {
        apiStructType: 'limitBalance',
        balanceStatus: 'OK',
        limitBalance: { currentLimit: aud('500000.00'), availableLimit: aud('500000.00'), setLimit: aud('500000.00') },
      },
      details: {
        nickname: 'Trading portfolio',
        productType: 'Portfolio',
        productCode: 'BUS-CHOICE-PKG',
        productName: 'NAB Business Choice Package',
        openingDate: '2017-02-13T00:00:00Z',
        apiStructType: 'portfolioAccount',
        portfolioAccount: {
          description: 'NAB Business Choice portfolio',
          portfolioLimit: '500000.00',
          currentLimit: '500000.00',
          availableLimit: '500000.00',
          subAccountCount: 0,
        },
      },
    }),
  ]
}

function customer2(): ImportCustomer {
  const l = SANDBOX_LOGINS.customer2
  return {
    id: SANDBOX_CUSTOMER_2_ID,
    ...NAB,
    isBusiness: true,
    credentials: [{ kind: 'usernamePassword', username: l.username, secret: l.password }],
    accounts: customer2Accounts(),
  }
}

// ---- The data set --------------------------------------------------------------------------------------------

/** The sandbox data, built fresh on each call (callers may mutate it) and identical every time. */
export function sandboxDataset(): ImportFile {
  return {
    exchangeRates: EXCHANGE_RATES.map((rate) => ({ ...rate })),
    customers: [customer1(), customer2()],
  }
}
