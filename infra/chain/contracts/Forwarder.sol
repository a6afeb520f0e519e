// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "./IERC20.sol";
import {SafeTransfer} from "./SafeTransfer.sol";

/// @title Per-invoice deposit address (the `transfer` rail)
/// @notice Deployed by DepositFactory with CREATE2 at the address the buyer was told to pay.
/// It obeys only the factory that created it; the factory only ever asks it to pay the merchant
/// committed in the CREATE2 salt. No constructor arguments: the creation code, and so the
/// init-code hash, is the same for every invoice.
contract Forwarder {
    using SafeTransfer for IERC20;

    uint256 private constant BPS_DENOMINATOR = 10_000;

    address public immutable factory;

    error NotFactory(address caller);

    constructor() {
        factory = msg.sender;
    }

    /// @notice Send this address's whole balance of `token`: the fee part to `feeRecipient`,
    /// the rest to `merchant`. Returns the swept amount and the fee (both 0 if nothing to sweep).
    function sweep(address token, address merchant, uint16 feeBps, address feeRecipient)
        external
        returns (uint256 amount, uint256 fee)
    {
        if (msg.sender != factory) revert NotFactory(msg.sender);
        amount = IERC20(token).safeBalanceOf(address(this));
        if (amount == 0) return (0, 0);
        fee = amount * feeBps / BPS_DENOMINATOR;
        if (fee != 0) IERC20(token).safeTransfer(feeRecipient, fee);
        IERC20(token).safeTransfer(merchant, amount - fee);
    }
}
