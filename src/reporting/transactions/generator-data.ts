// The tables the generator draws from: card brands, currencies with their settlement rates, people and places,
// decline and chargeback reasons, Decision Manager reviewers. Weights are rough shares of real card traffic.

export interface Brand {
  subtype: string
  cardType: string
  /** Card type code of the Simple Order API (001 Visa, 002 Mastercard, …). */
  code: string
  bins: readonly string[]
  /** Merchant discount rate in percent, and interchange rate in percent. */
  discountRate: string
  interchangeRate: string
  /** The same rates as fractions (2.39 % is 0.0239). */
  discountFraction: string
  interchangeFraction: string
  /** Extra days to funding. */
  fundingLag: number
}

export const BRANDS: readonly (readonly [Brand, number])[] = [
  [{ subtype: 'VI', cardType: 'Visa', code: '001', bins: ['411111', '424242', '400010'], discountRate: '2.39', interchangeRate: '1.80', discountFraction: '0.0239', interchangeFraction: '0.0180', fundingLag: 0 }, 50],
  [{ subtype: 'MC', cardType: 'Mastercard', code: '002', bins: ['555555', '520082', '222300'], discountRate: '2.45', interchangeRate: '1.85', discountFraction: '0.0245', interchangeFraction: '0.0185', fundingLag: 0 }, 30],
  [{ subtype: 'AX', cardType: 'American Express', code: '003', bins: ['378282', '371449'], discountRate: '3.15', interchangeRate: '2.50', discountFraction: '0.0315', interchangeFraction: '0.0250', fundingLag: 1 }, 10],
  [{ subtype: 'DI', cardType: 'Discover', code: '004', bins: ['601111', '644564'], discountRate: '2.50', interchangeRate: '1.90', discountFraction: '0.0250', interchangeFraction: '0.0190', fundingLag: 0 }, 6],
  // DP is PINless debit in the reporting interface's payment subtypes (the spec's list), so the generated brand is too.
  [{ subtype: 'DP', cardType: 'PINless Debit', code: '005', bins: ['305693', '362270'], discountRate: '2.85', interchangeRate: '2.10', discountFraction: '0.0285', interchangeFraction: '0.0210', fundingLag: 1 }, 4],
]

export interface Currency {
  code: string
  /** Minor-unit digits (JPY has none). */
  scale: number
  /** Units of the merchant's settlement currency (USD) per unit, 4 decimals. */
  rate: string
  country: string
  cities: readonly (readonly [string, string, string])[]
}

export const CURRENCIES: readonly (readonly [Currency, number])[] = [
  [{ code: 'USD', scale: 2, rate: '1.0000', country: 'US', cities: [['New York', 'NY', '10001'], ['Austin', 'TX', '78701'], ['San Mateo', 'CA', '94404'], ['Chicago', 'IL', '60601']] }, 70],
  [{ code: 'EUR', scale: 2, rate: '1.0843', country: 'DE', cities: [['Berlin', 'BE', '10115'], ['Munich', 'BY', '80331']] }, 10],
  [{ code: 'GBP', scale: 2, rate: '1.2671', country: 'GB', cities: [['London', 'LND', 'EC1A1BB'], ['Leeds', 'WYK', 'LS11UR']] }, 8],
  [{ code: 'CAD', scale: 2, rate: '0.7352', country: 'CA', cities: [['Toronto', 'ON', 'M5H2N2'], ['Vancouver', 'BC', 'V6B1A1']] }, 5],
  [{ code: 'JPY', scale: 0, rate: '0.0067', country: 'JP', cities: [['Tokyo', '13', '1000001'], ['Osaka', '27', '5300001']] }, 4],
  [{ code: 'AUD', scale: 2, rate: '0.6581', country: 'AU', cities: [['Sydney', 'NSW', '2000'], ['Melbourne', 'VIC', '3000']] }, 3],
]

export const SETTLEMENT_CURRENCY = 'USD'

export const FIRST_NAMES = ['Alex', 'Sam', 'Jordan', 'Taylor', 'Morgan', 'Casey', 'Riley', 'Jamie', 'Avery', 'Quinn', 'Maria', 'Wei', 'Aiko', 'Lukas', 'Priya', 'Omar'] as const
export const LAST_NAMES = ['Smith', 'Garcia', 'Chen', 'Müller', 'Tanaka', 'Patel', "O'Brien", 'Nguyen', 'Kowalski', 'Silva', 'Johnson', 'Brown'] as const

export const PRODUCTS: readonly (readonly [string, string, string])[] = [
  ['Wireless Mouse', 'physical', 'SKU-1001'],
  ['Annual Subscription', 'service', 'SKU-2001'],
  ['E-book Bundle', 'electronic', 'SKU-3001'],
  ['Running Shoes', 'physical', 'SKU-4001'],
  ['Gift Card', 'electronic', 'SKU-5001'],
  ['Express Shipping', 'shipping', 'SKU-9001'],
]

/** Issuer declines: reason code, reply flag, message. */
export const DECLINES: readonly (readonly [string, string, string])[] = [
  ['203', 'DCARDREFUSED', 'General decline of the card. No other information provided by the issuing bank.'],
  ['204', 'DCARDREFUSED', 'Insufficient funds in the account.'],
  ['233', 'DCARDREFUSED', 'General decline by the processor.'],
  ['202', 'DCARDEXPIRED', 'Expired card.'],
  ['211', 'DINVALIDCVN', 'Invalid card verification number.'],
]

export const CHARGEBACK_REASONS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  VI: [['10.4', 'Other Fraud - Card Absent Environment'], ['13.1', 'Merchandise/Services Not Received'], ['13.3', 'Not as Described or Defective']],
  MC: [['4837', 'No Cardholder Authorization'], ['4853', 'Cardholder Dispute'], ['4855', 'Goods or Services Not Provided']],
  AX: [['F29', 'Card Not Present'], ['C08', 'Goods/Services Not Received']],
  DI: [['UA02', 'Fraud - Card Not Present Transaction'], ['AA', 'Does Not Recognize']],
  DP: [['4837', 'No Cardholder Authorization']],
}

export const REVIEWERS = ['jsmith', 'akumar', 'mlopez', 'tnguyen'] as const
export const REVIEW_QUEUES = ['Review Queue', 'High Value Queue', 'Velocity Queue'] as const
export const REVIEW_PROFILES = ['Default Profile', 'High Risk Profile'] as const
export const REVIEW_COMMENTS = { ACCEPT: ['Verified order.', 'Customer confirmed by phone.', 'Repeat customer.'], REJECT: ['Address mismatch.', 'Suspected fraud ring.'] } as const

export const APPLICATIONS = {
  authorization: 'ics_auth',
  capture: 'ics_bill',
  sale: 'ics_auth,ics_bill',
  refund: 'ics_credit',
  credit: 'ics_credit',
  void: 'ics_void',
  chargeback: 'chargeback',
} as const
