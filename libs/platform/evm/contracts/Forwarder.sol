// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

interface IForwarderParent {
    function parent() external view returns (address);
}

/// @notice A deposit address. Its address is known before it exists (CREATE2 by the ForwarderFactory with a salt per
/// wallet or off-ramp), so tokens and the native coin can be sent to it first; the platform then deploys it and
/// flushes everything to the parent (the chain's hot wallet). Nobody but the factory can flush, and a flush can only
/// ever pay the parent: the contract holds no key and has no other way out.
contract Forwarder {
    address public immutable factory;
    address public immutable parent;

    error NotFactory(address caller);
    error NativeTransferFailed();

    constructor() {
        factory = msg.sender;
        parent = IForwarderParent(msg.sender).parent();
    }

    /// Native coin sent after deployment waits here for the next flush.
    receive() external payable {}

    /// A token that could not be flushed (its balanceOf or transfer reverted, or its transfer returned false): it stays
    /// here, and the other tokens are flushed all the same.
    event FlushFailed(address indexed token);

    /// Flushes each listed token and the native coin to the parent. One broken token (a paused or blocklisting token,
    /// one that reverts or returns false) never blocks the others: it is skipped with FlushFailed and tried again at
    /// the next sweep.
    function flush(address[] calldata tokens) external {
        if (msg.sender != factory) revert NotFactory(msg.sender);
        for (uint256 i = 0; i < tokens.length; i++) {
            if (!_flushToken(tokens[i])) emit FlushFailed(tokens[i]);
        }
        if (address(this).balance > 0) {
            (bool ok, ) = payable(parent).call{value: address(this).balance}("");
            if (!ok) revert NativeTransferFailed();
        }
    }

    function _flushToken(address token) private returns (bool) {
        (bool read, bytes memory answer) = token.staticcall(abi.encodeCall(IERC20.balanceOf, (address(this))));
        if (!read || answer.length < 32) return false;
        uint256 balance = abi.decode(answer, (uint256));
        if (balance == 0) return true;
        (bool sent, bytes memory result) = token.call(abi.encodeCall(IERC20.transfer, (parent, balance)));
        return sent && (result.length == 0 || (result.length >= 32 && abi.decode(result, (bool))));
    }
}
