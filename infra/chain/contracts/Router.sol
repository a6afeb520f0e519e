// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "./IERC20.sol";
import {Owned} from "./Owned.sol";
import {SafeTransfer} from "./SafeTransfer.sol";

/// @title duepay payment router (the `wallet` rail)
/// @notice The buyer's wallet submits a payment intent signed by the duepay service (EIP-712).
/// The router checks the signature against the set of authorised service signers, enforces the
/// deadline against block.timestamp, accepts each invoiceId once, pulls exactly `amount` of
/// `token` from the buyer and splits it: floor(amount * feeBps / 10000) to the fee recipient,
/// the rest to `intent.merchant`. The router holds no funds between transactions.
contract Router is Owned {
    using SafeTransfer for IERC20;

    /// @dev Field order and types are the EIP-712 type below; do not reorder.
    struct PaymentIntent {
        bytes32 invoiceId;
        address merchant;
        address token;
        uint256 amount;
        uint16 feeBps;
        uint256 deadline;
    }

    bytes32 public constant PAYMENT_INTENT_TYPEHASH = keccak256(
        "PaymentIntent(bytes32 invoiceId,address merchant,address token,uint256 amount,uint16 feeBps,uint256 deadline)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 private constant NAME_HASH = keccak256("duepay");
    bytes32 private constant VERSION_HASH = keccak256("1");
    uint256 private constant BPS_DENOMINATOR = 10_000;
    /// @dev secp256k1 group order / 2; signatures with a larger s are the malleable twin.
    uint256 private constant HALF_ORDER =
        0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    uint256 private immutable cachedChainId;
    bytes32 private immutable cachedDomainSeparator;

    /// @notice Receives the fee part of every payment.
    address public feeRecipient;
    /// @notice Service keys whose EIP-712 signatures the router accepts.
    mapping(address => bool) public isSigner;
    /// @notice invoiceId => already paid through this router.
    mapping(bytes32 => bool) public isPaid;

    event InvoicePaid(
        bytes32 indexed invoiceId,
        address indexed payer,
        address indexed merchant,
        address token,
        uint256 amount,
        uint256 fee
    );
    event SignerUpdated(address indexed signer, bool authorised);
    event FeeRecipientUpdated(address indexed previousRecipient, address indexed newRecipient);

    error InvalidSignatureLength(uint256 length);
    error InvalidSignatureV(uint8 v);
    error InvalidSignatureS(bytes32 s);
    error InvalidSignature();
    error UnauthorizedSigner(address recovered);
    error IntentExpired(bytes32 invoiceId, uint256 deadline, uint256 blockTimestamp);
    error InvoiceAlreadyPaid(bytes32 invoiceId);
    error FeeBpsTooHigh(uint16 feeBps);
    error ZeroAmount();
    error AmountNotReceived(uint256 expected, uint256 received);

    constructor(address feeRecipient_) {
        if (feeRecipient_ == address(0)) revert ZeroAddress();
        feeRecipient = feeRecipient_;
        emit FeeRecipientUpdated(address(0), feeRecipient_);
        cachedChainId = block.chainid;
        cachedDomainSeparator = _buildDomainSeparator();
    }

    // ---------------------------------------------------------------- admin (owner only)

    /// @notice Authorise or revoke a service signer. Rotation = authorise the new key, move the
    /// service over, revoke the old key (intents already signed by it then stop working).
    function setSigner(address signer, bool authorised) external onlyOwner {
        if (signer == address(0)) revert ZeroAddress();
        isSigner[signer] = authorised;
        emit SignerUpdated(signer, authorised);
    }

    function setFeeRecipient(address newRecipient) external onlyOwner {
        if (newRecipient == address(0)) revert ZeroAddress();
        emit FeeRecipientUpdated(feeRecipient, newRecipient);
        feeRecipient = newRecipient;
    }

    // ---------------------------------------------------------------- payment

    /// @notice Pay an invoice. The caller must have approved this router for `intent.amount`
    /// of `intent.token`.
    function pay(PaymentIntent calldata intent, bytes calldata signature) external {
        address signer = _recover(hashIntent(intent), signature);
        if (!isSigner[signer]) revert UnauthorizedSigner(signer);
        if (block.timestamp > intent.deadline) {
            revert IntentExpired(intent.invoiceId, intent.deadline, block.timestamp);
        }
        if (isPaid[intent.invoiceId]) revert InvoiceAlreadyPaid(intent.invoiceId);
        if (intent.feeBps > BPS_DENOMINATOR) revert FeeBpsTooHigh(intent.feeBps);
        if (intent.amount == 0) revert ZeroAmount();
        if (intent.merchant == address(0)) revert ZeroAddress();

        // Effects before interactions: a re-entrant token cannot pay the same invoice twice.
        isPaid[intent.invoiceId] = true;

        IERC20 token = IERC20(intent.token);
        uint256 balanceBefore = token.safeBalanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), intent.amount);
        uint256 received = token.safeBalanceOf(address(this)) - balanceBefore;
        // Fee-on-transfer and other non-standard tokens would leave the merchant short.
        if (received != intent.amount) revert AmountNotReceived(intent.amount, received);

        uint256 fee = intent.amount * intent.feeBps / BPS_DENOMINATOR;
        if (fee != 0) token.safeTransfer(feeRecipient, fee);
        token.safeTransfer(intent.merchant, intent.amount - fee);

        emit InvoicePaid(intent.invoiceId, msg.sender, intent.merchant, intent.token, intent.amount, fee);
    }

    // ---------------------------------------------------------------- views

    /// @notice EIP-712 domain separator {name "duepay", version "1", chainId, this router}.
    function domainSeparator() public view returns (bytes32) {
        return block.chainid == cachedChainId ? cachedDomainSeparator : _buildDomainSeparator();
    }

    /// @notice The EIP-712 digest the service signs for `intent`.
    function hashIntent(PaymentIntent calldata intent) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                PAYMENT_INTENT_TYPEHASH,
                intent.invoiceId,
                intent.merchant,
                intent.token,
                intent.amount,
                intent.feeBps,
                intent.deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    // ---------------------------------------------------------------- internals

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @dev 65 bytes r || s || v, v in {27, 28}, s in the lower half of the curve order.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) revert InvalidSignatureLength(signature.length);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v != 27 && v != 28) revert InvalidSignatureV(v);
        if (uint256(s) > HALF_ORDER) revert InvalidSignatureS(s);
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        return signer;
    }
}
