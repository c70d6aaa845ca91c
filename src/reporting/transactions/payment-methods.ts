// How the reports name a payment subtype. The codes and their meanings are the spec's (paymentSubtype: VI Visa,
// MC Mastercard, AX American Express, DI Discover, DP PINless debit); a transaction without one is an eCheck.
// An imported code not in the list is shown as it is.

interface Method {
  description: string
  paymentMethod: string
  paymentType: string
}

// A Map: the code is imported text, which a plain object would answer for `toString` or `constructor`.
const METHODS: ReadonlyMap<string, Method> = new Map([
  ['VI', { description: 'Visa', paymentMethod: 'VISA', paymentType: 'credit card' }],
  ['MC', { description: 'Mastercard', paymentMethod: 'MASTERCARD', paymentType: 'credit card' }],
  ['AX', { description: 'American Express', paymentMethod: 'AMERICAN EXPRESS', paymentType: 'credit card' }],
  ['DI', { description: 'Discover', paymentMethod: 'DISCOVER', paymentType: 'credit card' }],
  ['DP', { description: 'PINless Debit', paymentMethod: 'PINLESS DEBIT', paymentType: 'debit card' }],
  ['', { description: 'eCheck', paymentMethod: 'ECHECK', paymentType: 'check' }],
])

export function paymentMethodOf(subtype: string | null | undefined): Method {
  const code = subtype ?? ''
  return METHODS.get(code) ?? { description: code, paymentMethod: code, paymentType: 'card' }
}
