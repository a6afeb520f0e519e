// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Forwarder} from "./Forwarder.sol";
import {Owned} from "./Owned.sol";

/// @title Deposit addresses for the `transfer` rail
/// @notice depositAddress(invoiceId, merchant, feeBps) =
///   keccak256(0xff ++ this ++ salt ++ forwarderInitCodeHash)[12:],
///   salt = keccak256(abi.encode(invoiceId, merchant, feeBps)).
/// The merchant and fee are part of the address itself, so tokens sent there can only ever be
/// swept to that merchant (minus that fee). `settle` is permissionless: anyone may pay the gas
/// to move a deposit on to its merchant; nobody can send it anywhere else.
contract DepositFactory is Owned {
    uint256 private constant BPS_DENOMINATOR = 10_000;

    /// @notice keccak256 of the Forwarder's creation code; the same for every invoice.
    bytes32 public immutable forwarderInitCodeHash;
    /// @notice Receives the fee part of every sweep.
    address public feeRecipient;

    event ForwarderDeployed(
        bytes32 indexed invoiceId, address indexed depositAddress, address indexed merchant, uint16 feeBps
    );
    event Settled(
        bytes32 indexed invoiceId, address indexed depositAddress, address token, uint256 amount, uint256 fee
    );
    event FeeRecipientUpdated(address indexed previousRecipient, address indexed newRecipient);

    error FeeBpsTooHigh(uint16 feeBps);
    error TokenNotContract(address token);
    error NothingToSettle(address depositAddress, address token);
    error ForwarderAddressMismatch(address expected, address deployed);

    constructor(address feeRecipient_) {
        if (feeRecipient_ == address(0)) revert ZeroAddress();
        feeRecipient = feeRecipient_;
        emit FeeRecipientUpdated(address(0), feeRecipient_);
        forwarderInitCodeHash = keccak256(type(Forwarder).creationCode);
    }

    function setFeeRecipient(address newRecipient) external onlyOwner {
        if (newRecipient == address(0)) revert ZeroAddress();
        emit FeeRecipientUpdated(feeRecipient, newRecipient);
        feeRecipient = newRecipient;
    }

    /// @notice The CREATE2 salt of an invoice's deposit address.
    function saltOf(bytes32 invoiceId, address merchant, uint16 feeBps) public pure returns (bytes32) {
        return keccak256(abi.encode(invoiceId, merchant, feeBps));
    }

    /// @notice Where the buyer of `invoiceId` sends tokens (valid before the forwarder exists).
    function depositAddress(bytes32 invoiceId, address merchant, uint16 feeBps) public view returns (address) {
        bytes32 hash = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), saltOf(invoiceId, merchant, feeBps), forwarderInitCodeHash)
        );
        return address(uint160(uint256(hash)));
    }

    /// @notice Sweep the deposit address's whole balance of `token` to `merchant` (fee to the fee
    /// recipient), deploying the forwarder on first use. Callable by anyone; arguments that do
    /// not match a funded deposit address just find nothing to settle.
    function settle(bytes32 invoiceId, address merchant, uint16 feeBps, address token)
        external
        returns (uint256 amount, uint256 fee)
    {
        if (merchant == address(0)) revert ZeroAddress();
        if (feeBps > BPS_DENOMINATOR) revert FeeBpsTooHigh(feeBps);
        if (token.code.length == 0) revert TokenNotContract(token);

        bytes32 salt = saltOf(invoiceId, merchant, feeBps);
        address deposit = depositAddress(invoiceId, merchant, feeBps);
        if (deposit.code.length == 0) {
            address deployed = address(new Forwarder{salt: salt}());
            if (deployed != deposit) revert ForwarderAddressMismatch(deposit, deployed);
            emit ForwarderDeployed(invoiceId, deposit, merchant, feeBps);
        }

        (amount, fee) = Forwarder(deposit).sweep(token, merchant, feeBps, feeRecipient);
        if (amount == 0) revert NothingToSettle(deposit, token);
        emit Settled(invoiceId, deposit, token, amount, fee);
    }
}
