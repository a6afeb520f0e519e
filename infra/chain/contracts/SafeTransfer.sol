// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {IERC20} from "./IERC20.sol";

/// @notice A token call reverted, returned false, returned something that is not a bool, or the
/// token address holds no code.
error TokenCallFailed(address token);

/// @notice ERC-20 calls that accept the three shapes seen in the wild (returns true, returns
/// nothing as USDT on Ethereum does, reverts on failure) and turn every failure into one error.
library SafeTransfer {
    function safeTransfer(IERC20 token, address to, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.transfer, (to, amount)));
    }

    function safeTransferFrom(IERC20 token, address from, address to, uint256 amount) internal {
        _call(token, abi.encodeCall(IERC20.transferFrom, (from, to, amount)));
    }

    /// @dev balanceOf through a static call so that a non-token address fails with
    /// TokenCallFailed instead of an empty revert.
    function safeBalanceOf(IERC20 token, address account) internal view returns (uint256) {
        (bool ok, bytes memory ret) =
            address(token).staticcall(abi.encodeCall(IERC20.balanceOf, (account)));
        if (!ok || ret.length < 32) revert TokenCallFailed(address(token));
        return abi.decode(ret, (uint256));
    }

    function _call(IERC20 token, bytes memory data) private {
        (bool ok, bytes memory ret) = address(token).call(data);
        if (!ok) revert TokenCallFailed(address(token));
        if (ret.length == 0) {
            // A call to an address without code "succeeds" with no return data.
            if (address(token).code.length == 0) revert TokenCallFailed(address(token));
        } else if (ret.length != 32 || abi.decode(ret, (uint256)) != 1) {
            revert TokenCallFailed(address(token));
        }
    }
}
