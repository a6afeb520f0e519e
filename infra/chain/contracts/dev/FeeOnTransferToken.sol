// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {TestToken} from "./TestToken.sol";

/// @title Dev/test-only token that burns `burnBps` of every transfer
/// @notice Exists so tests can show the Router refuses tokens that deliver less than `amount`.
contract FeeOnTransferToken is TestToken {
    uint16 public immutable burnBps;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint16 burnBps_)
        TestToken(name_, symbol_, decimals_)
    {
        burnBps = burnBps_;
    }

    function _transfer(address from, address to, uint256 amount) internal override {
        uint256 burned = amount * burnBps / 10_000;
        super._transfer(from, to, amount);
        if (burned != 0) _burn(to, burned);
    }
}
